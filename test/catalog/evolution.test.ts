import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { CHANGED_IN_VERSION_2, CHANGED_IN_VERSION_3, CHANGED_IN_VERSION_4, SPEC_22_ITEMS, VERSION_2_ITEMS, VERSION_4_ITEMS } from './spec-items.ts';

interface Entry {
  technicalName: string;
  description: string;
  version: number;
  updatedAt: string;
}

let t: TestApp;
let all: Entry[];
beforeAll(async () => {
  t = await createTestApp();
  all = (await t.app.inject({ method: 'GET', url: '/catalog/v1/data-items' })).json<Entry[]>();
});
afterAll(async () => {
  await t?.cleanup();
});

const byName = (name: string) => all.find((e) => e.technicalName === name)!;
const since = async (iso: string) =>
  (await t.app.inject({ method: 'GET', url: `/catalog/v1/data-items?updatedSince=${encodeURIComponent(iso)}` }))
    .json<Entry[]>()
    .map((e) => e.technicalName);

const addedInV2 = VERSION_2_ITEMS.map((i) => i.technicalName);
const addedInV4 = VERSION_4_ITEMS.map((i) => i.technicalName);
const added = [...addedInV2, ...addedInV4];
const changed = [CHANGED_IN_VERSION_2, ...CHANGED_IN_VERSION_3, ...CHANGED_IN_VERSION_4];
const unchanged = SPEC_22_ITEMS.map((i) => i.technicalName).filter((n) => !changed.includes(n));
/** Every change of an entry raises its version by one. */
const expectedVersion = (n: string) => 1 + changed.filter((c) => c === n).length;

describe('catalog evolution through the API', () => {
  it('gives every entry an integer version and an ISO updatedAt', () => {
    for (const e of all) {
      expect(Number.isInteger(e.version) && e.version >= 1, e.technicalName).toBe(true);
      expect(new Date(e.updatedAt).toISOString(), e.technicalName).toBe(e.updatedAt.replace('Z', '.000Z'));
    }
  });

  it('keeps the untouched spec 2.2 items at version 1, older than every change', () => {
    const latestOriginal = Math.max(...unchanged.map((n) => Date.parse(byName(n).updatedAt)));
    for (const n of unchanged) expect(byName(n).version, n).toBe(1);
    for (const n of [...added, ...changed]) expect(Date.parse(byName(n).updatedAt), n).toBeGreaterThan(latestOriginal);
  });

  it('raises the version of every changed entry by one per change', () => {
    for (const n of changed) expect(byName(n).version, n).toBe(expectedVersion(n));
  });

  it('adds the version-2 and version-4 items at version 1, raised by their later changes', () => {
    for (const n of addedInV4) expect(byName(n).version, n).toBe(1);
    for (const n of addedInV2) expect(byName(n).version, n).toBe(expectedVersion(n));
    // mileage and vehicleheading changed in version 4; the other version-2 items did not.
    expect(addedInV2.filter((n) => byName(n).version > 1).sort()).toEqual(['mileage', 'vehicleheading']);
  });

  it('shows the changed description at version 2', () => {
    const entry = byName(CHANGED_IN_VERSION_2);
    const original = SPEC_22_ITEMS.find((i) => i.technicalName === CHANGED_IN_VERSION_2)!.description;
    expect(entry.version).toBeGreaterThanOrEqual(2);
    expect(entry.description).not.toBe(original);
    expect(entry.description).toMatch(/per week/);
  });

  it('returns exactly the changed and added entries for updatedSince after version 1', async () => {
    const v2 = byName(addedInV2.find((n) => !changed.includes(n))!).updatedAt;
    const expected = [...new Set([...added, ...changed])].sort();
    expect(await since(v2)).toEqual(expected); // inclusive: the instant of the change itself
    expect(await since('2024-03-01T00:00:00+02:00')).toEqual(expected);
    expect(await since('2024-03-01')).toEqual(expected);
    expect(await since('2023-12-31T23:59:59Z')).toHaveLength(all.length);
  });

  it('returns exactly the version-3 and version-4 changes for updatedSince after version 2', async () => {
    const v3 = byName(CHANGED_IN_VERSION_3[0]!).updatedAt;
    expect(Date.parse(v3)).toBeGreaterThan(Date.parse(byName('vehiclespeed').updatedAt));
    expect(await since(v3)).toEqual([...new Set([...CHANGED_IN_VERSION_3, ...CHANGED_IN_VERSION_4, ...addedInV4])].sort());
  });

  it('returns exactly the version-4 additions and changes for updatedSince after version 3', async () => {
    const v3 = byName(CHANGED_IN_VERSION_3[0]!).updatedAt;
    const v4 = byName(addedInV4[0]!).updatedAt;
    expect(Date.parse(v4)).toBeGreaterThan(Date.parse(v3));
    const expected = [...addedInV4, ...CHANGED_IN_VERSION_4].sort();
    expect(expected).toHaveLength(28);
    expect(await since(new Date(Date.parse(v3) + 1).toISOString())).toEqual(expected);
    expect(await since(v4)).toEqual(expected);
    for (const n of expected) expect(byName(n).updatedAt, n).toBe(v4);
    expect(await since(new Date(Date.parse(v4) + 1).toISOString())).toEqual([]);
  });

  it('describes each version-4 change in the entry itself', () => {
    expect(byName('vehicleheading')).toMatchObject({ version: 2 });
    expect(byName('mileage').description).toMatch(/whole/);
    expect(byName('checkcontrolmessages')).toMatchObject({ version: 2 });
  });

  it('combines updatedSince with deliveryMethod', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/catalog/v1/data-items?deliveryMethod=push&updatedSince=2024-03-01T00:00:00Z' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });
});
