import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/*
 * GET /catalog/v1/manufacturers: which catalog items each connected manufacturer supplies,
 * public like the catalog, read from the manifests of adapters/ (whatever manufacturers they are).
 */
describe('the catalog’s manufacturers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.cleanup());

  const manifests = () => {
    const dir = t.services.paths.adapters;
    return readdirSync(dir)
      .filter((d) => readdirSync(join(dir, d)).includes('manifest.json'))
      .map((d) => JSON.parse(readFileSync(join(dir, d, 'manifest.json'), 'utf8')) as { id: string; name: string; vinPrefixes: string[]; items: string[] })
      .sort((a, b) => a.id.localeCompare(b.id));
  };

  it('lists every manufacturer with its VIN prefixes and the items it supplies, without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/catalog/v1/manufacturers' });
    expect(res.statusCode).toBe(200);
    const expected = manifests().map((m) => ({ id: m.id, name: m.name, vinPrefixes: m.vinPrefixes, dataItems: [...m.items].sort() }));
    expect(res.json()).toEqual(expected);
    const catalog = new Set(t.services.catalog.list().map((e) => e.technicalName));
    for (const m of res.json() as { dataItems: string[] }[]) for (const i of m.dataItems) expect(catalog.has(i), i).toBe(true);
    // Nothing of how the data travels: no transport, topics or secrets' names.
    expect(res.body).not.toMatch(/transport|secretEnv|topics|tokenEndpoint/);
  });

  it('lists only the manufacturers that supply an item, and refuses an item the catalog does not know', async () => {
    for (const item of ['sochighlevel', 'charginghistory', 'dtc']) {
      const res = await t.app.inject({ method: 'GET', url: `/catalog/v1/manufacturers?dataItem=${item}` });
      expect(res.statusCode).toBe(200);
      expect(res.json().map((m: { id: string }) => m.id)).toEqual(manifests().filter((m) => m.items.includes(item)).map((m) => m.id));
    }
    const unknown = await t.app.inject({ method: 'GET', url: '/catalog/v1/manufacturers?dataItem=warpdrive' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().reasonText).toBe('Bad request, data item warpdrive is not in the catalog.');
  });

  it('answers one manufacturer, and 404 for an unknown one', async () => {
    const [first] = manifests();
    const one = await t.app.inject({ method: 'GET', url: `/catalog/v1/manufacturers/${first!.id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ id: first!.id, name: first!.name, vinPrefixes: first!.vinPrefixes, dataItems: [...first!.items].sort() });
    const unknown = await t.app.inject({ method: 'GET', url: '/catalog/v1/manufacturers/no-such-maker' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ reasonCode: 'CAR.404', reasonText: 'Manufacturer no-such-maker not found.', url: '/catalog/v1/manufacturers/no-such-maker', method: 'GET' });
  });
});
