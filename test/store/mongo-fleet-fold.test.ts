import { describe, expect, it } from 'vitest';
import { addVinDoc, byManufacturer, type VinDoc, type VinSummary } from '../../src/store/mongo/fleet-fold.ts';

// The MongoDB engine's console folds documents read in VIN order into a fleet page; no server
// runs here, so the fold is checked on its own with the documents a cursor would yield.
const V1 = 'V1RTUALV1N0000001';
const V2 = 'V1RTUALV1N0000002';
const V3 = 'V1RTUALV1N0000003';

function fold(docs: VinDoc[], limit: number): { page: VinSummary[]; stoppedAt: number | null } {
  const page = new Map<string, VinSummary>();
  const stop = docs.findIndex((d) => !addVinDoc(page, d, limit));
  return { page: [...page.values()], stoppedAt: stop < 0 ? null : stop };
}

describe('MongoDB console: a fleet page from documents in VIN order', () => {
  it('keeps a VIN’s newest receivedAt, whatever order its items come in', () => {
    const { page } = fold(
      [
        { vin: V1, manufacturer: 'virtual', receivedAt: '2026-03-01T10:01:00.000Z' },
        { vin: V1, manufacturer: 'virtual', receivedAt: '2026-03-01T10:03:00.000Z' },
        { vin: V1, manufacturer: 'virtual', receivedAt: '2026-03-01T10:02:00.000Z' },
      ],
      10,
    );
    expect(page).toEqual([{ vin: V1, manufacturer: 'virtual', receivedAt: '2026-03-01T10:03:00.000Z' }]);
  });

  it('names the manufacturer of a VIN activated without one in one subscription and with one in another', () => {
    // vehicles documents: no receivedAt. SQLite's max(manufacturer) skips the null; so does the fold.
    expect(fold([{ vin: V1, manufacturer: null }, { vin: V1, manufacturer: 'virtual' }], 10).page).toEqual([{ vin: V1, manufacturer: 'virtual' }]);
    expect(fold([{ vin: V1, manufacturer: 'virtual' }, { vin: V1, manufacturer: null }], 10).page).toEqual([{ vin: V1, manufacturer: 'virtual' }]);
    expect(fold([{ vin: V1 }], 10).page).toEqual([{ vin: V1, manufacturer: null }]);
  });

  it('stops at the first VIN past a full page, after every document of the last VIN', () => {
    const docs: VinDoc[] = [
      { vin: V1, manufacturer: 'virtual' },
      { vin: V2, manufacturer: null },
      { vin: V2, manufacturer: 'virtual' },
      { vin: V3, manufacturer: 'virtual' },
    ];
    const { page, stoppedAt } = fold(docs, 2);
    expect(stoppedAt).toBe(3);
    expect(page).toEqual([
      { vin: V1, manufacturer: 'virtual' },
      { vin: V2, manufacturer: 'virtual' },
    ]);
  });
});

describe('MongoDB console: the funnel’s row order', () => {
  it('orders manufacturers as SQLite’s BINARY collation does, null last', () => {
    const rows = ['borealis', null, 'Zeta', 'a-b', 'ab', 'virtual'].map((manufacturer) => ({ manufacturer }));
    expect(rows.sort(byManufacturer).map((r) => r.manufacturer)).toEqual(['Zeta', 'a-b', 'ab', 'borealis', 'virtual', null]);
  });
});
