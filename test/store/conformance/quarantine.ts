import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QuarantinedMessage } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory } from './types.ts';

const VIN = 'V1RTUALV1N0000001';
const at = (s: number) => new Date(Date.parse('2026-11-25T10:00:00.000Z') + s * 1000).toISOString();

const entry = (id: string, s: number, over: Partial<QuarantinedMessage> = {}): QuarantinedMessage => ({
  id,
  manufacturer: 'virtual',
  messageType: 'telemetry',
  code: 'SCHEMA_VIOLATION',
  reason: 'mileage: /value must be >= 0',
  mappingVersion: 'telemetry.jsonata@abc',
  vin: VIN,
  topic: `virtual/v1/${VIN}/telemetry`,
  raw: `{"vin":"${VIN}"}`,
  rawEncoding: 'utf8',
  rawTruncated: false,
  receivedAt: at(s),
  quarantinedAt: at(s),
  lastFailedAt: at(s),
  failures: 1,
  ...over,
});

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('quarantine', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('stores an entry with every field and reads it back by id', async () => {
      const q = ctx.store.quarantine;
      const e = entry('q1', 1, { rawEncoding: 'base64', raw: 'AAEC', vin: null, topic: null, mappingVersion: null, code: 'DECODE_FAILED' });
      await q.put(e);
      expect(await q.get(['q1', 'unknown'])).toEqual([e]);
      expect(await q.get([])).toEqual([]);
      expect(await q.count()).toBe(1);
    });

    it('keeps whether the raw message was cut', async () => {
      const q = ctx.store.quarantine;
      await q.put(entry('cut', 1, { raw: 'x'.repeat(10), rawTruncated: true }));
      await q.put(entry('whole', 2));
      expect((await q.get(['cut', 'whole'])).map((e) => [e.id, e.rawTruncated]).sort()).toEqual([['cut', true], ['whole', false]]);
    });

    it('ends a page at maxBytes of raw messages (never before its first entry), losing nothing', async () => {
      const q = ctx.store.quarantine;
      for (let i = 0; i < 5; i++) await q.put(entry(`m${i}`, i, { raw: String(i).repeat(i === 3 ? 5000 : 1000) }));
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await q.list({}, 100, cursor, { maxBytes: 2500 });
        pages.push(page.items.map((m) => m.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      // m3 alone is over the budget: it still comes, alone.
      expect(pages).toEqual([['m4'], ['m3'], ['m2', 'm1'], ['m0']]);
      expect((await q.list({}, 100)).items).toHaveLength(5);
    });

    it('counts a second failure once, and ignores the same report redelivered', async () => {
      const q = ctx.store.quarantine;
      await q.put(entry('q1', 1));
      await q.put(entry('q1', 1));
      expect((await q.get(['q1']))[0]?.failures).toBe(1);
      await q.put(entry('q1', 1, { lastFailedAt: at(60), code: 'MAPPING_FAILED', reason: 'new reason', mappingVersion: 'v2', quarantinedAt: at(60) }));
      const [again] = await q.get(['q1']);
      expect(again).toMatchObject({ failures: 2, code: 'MAPPING_FAILED', reason: 'new reason', mappingVersion: 'v2', quarantinedAt: at(1), lastFailedAt: at(60) });
      expect(await q.count()).toBe(1);
    });

    it('keeps the items that alone failed of a message, and drops them when the whole message fails later', async () => {
      const q = ctx.store.quarantine;
      await q.put(entry('p1', 1, { failedItems: ['vehicleheading', 'fuellevel'] }));
      expect((await q.get(['p1']))[0]?.failedItems).toEqual(['vehicleheading', 'fuellevel']);
      await q.put(entry('p1', 1, { lastFailedAt: at(30), failedItems: ['fuellevel'] }));
      expect((await q.get(['p1']))[0]).toMatchObject({ failures: 2, failedItems: ['fuellevel'] });
      await q.put(entry('p1', 1, { lastFailedAt: at(60), code: 'MAPPING_FAILED' }));
      const [whole] = await q.get(['p1']);
      expect(whole?.failures).toBe(3);
      expect(whole).not.toHaveProperty('failedItems');
    });

    it('lists newest failure first, with filters and a cursor that loses nothing', async () => {
      const q = ctx.store.quarantine;
      for (let i = 0; i < 7; i++) {
        await q.put(entry(`v${i}`, i, { code: i % 2 ? 'MAPPING_FAILED' : 'SCHEMA_VIOLATION' }));
        await q.put(entry(`b${i}`, i, { manufacturer: 'borealis' }));
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await q.list({ manufacturer: 'virtual' }, 3, cursor);
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items.map((m) => m.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(['v6', 'v5', 'v4', 'v3', 'v2', 'v1', 'v0']);

      const odd = await q.list({ manufacturer: 'virtual', code: 'MAPPING_FAILED' }, 100);
      expect(odd.items.map((m) => m.id)).toEqual(['v5', 'v3', 'v1']);
      expect(odd.nextCursor).toBeNull();
      const window = await q.list({ since: at(2), until: at(4) }, 100);
      expect(window.items.map((m) => m.id).sort()).toEqual(['b2', 'b3', 'v2', 'v3']);
      await expect(q.list({}, 0)).rejects.toThrow(RangeError);
      await expect(q.list({}, 10, 'not-a-cursor')).rejects.toThrow(RangeError);
    });

    it('pages entries that failed at the same instant by id, newest id first, none lost or repeated', async () => {
      const q = ctx.store.quarantine;
      // A redelivered batch quarantines many messages with the one receivedAt they share.
      const ids = ['m3', 'm1', 'm5', 'm2', 'm4'];
      for (const id of ids) await q.put(entry(id, 7));
      await q.put(entry('later', 8));
      await q.put(entry('earlier', 6));
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await q.list({}, 2, cursor);
        seen.push(...page.items.map((m) => m.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(['later', 'm5', 'm4', 'm3', 'm2', 'm1', 'earlier']);
    });

    it('removes entries by id', async () => {
      const q = ctx.store.quarantine;
      await q.put(entry('a', 1));
      await q.put(entry('b', 2));
      expect(await q.remove(['a', 'zzz'])).toBe(1);
      expect(await q.remove([])).toBe(0);
      expect((await q.list({}, 10)).items.map((m) => m.id)).toEqual(['b']);
    });

    it('removes entries whose last failure is older than the retention cutoff', async () => {
      const q = ctx.store.quarantine;
      await q.put(entry('old', 1));
      await q.put(entry('new', 100));
      await q.put(entry('retried', 2, { lastFailedAt: at(200) }));
      expect(await q.deleteOlderThan(at(50))).toBe(1);
      expect((await q.list({}, 10)).items.map((m) => m.id).sort()).toEqual(['new', 'retried']);
    });

    it('lists one vehicle\'s messages, newest failure first', async () => {
      const q = ctx.store.quarantine;
      await q.put(entry('mine-old', 1));
      await q.put(entry('theirs', 2, { vin: 'V1RTUALV1N0000002' }));
      await q.put(entry('no-vin', 3, { vin: null }));
      await q.put(entry('mine-new', 4, { manufacturer: 'borealis', code: 'MAPPING_FAILED' }));
      expect((await q.list({ vin: VIN }, 10)).items.map((m) => m.id)).toEqual(['mine-new', 'mine-old']);
      expect((await q.list({ vin: VIN, code: 'MAPPING_FAILED' }, 10)).items.map((m) => m.id)).toEqual(['mine-new']);
      expect((await q.list({ vin: 'V1RTUALV1N0000009' }, 10)).items).toEqual([]);
    });

    it('erases by VIN, including entries whose VIN was unknown but whose raw text holds it', async () => {
      const q = ctx.store.quarantine;
      await q.put(entry('known', 1));
      await q.put(entry('unknown-vin', 2, { vin: null, raw: `{"vin":"${VIN}", broken` }));
      await q.put(entry('other', 3, { vin: 'V1RTUALV1N0000002', raw: '{"vin":"V1RTUALV1N0000002"}' }));
      await q.put(entry('base64', 4, { vin: null, raw: 'AAEC', rawEncoding: 'base64' }));
      expect(await q.deleteByVin(VIN)).toBe(2);
      expect((await q.list({}, 10)).items.map((m) => m.id).sort()).toEqual(['base64', 'other']);
    });
  });
};

export default suite;
