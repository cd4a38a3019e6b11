import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPaths } from '../../src/paths.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ALL_ITEMS, CHANGED_IN_VERSION_2 } from './spec-items.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.cleanup();
});

const get = (url: string) => t.app.inject({ method: 'GET', url });
const fileEntry = (name: string) => JSON.parse(readFileSync(join(defaultPaths().catalog, `${name}.json`), 'utf8')) as Record<string, unknown>;

describe('GET /catalog/v1/data-items', () => {
  it('lists every item, without any key, as JSON sorted by technicalName', async () => {
    const res = await get('/catalog/v1/data-items');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const names = res.json<{ technicalName: string }[]>().map((e) => e.technicalName);
    const expected = ALL_ITEMS.map((i) => i.technicalName).sort();
    expect(names).toEqual(expected);
  });

  it.each(ALL_ITEMS.map((i) => [i.technicalName, i] as const))('serves %s with the metadata of spec 2.1', async (name, item) => {
    const listed = (await get('/catalog/v1/data-items')).json<Record<string, unknown>[]>().find((e) => e.technicalName === name);
    const res = await get(`/catalog/v1/data-items/${name}`);
    expect(res.statusCode).toBe(200);
    const entry = res.json<Record<string, unknown>>();
    // The API serves the file as it is: nothing dropped by the response serializer.
    expect(entry).toEqual(fileEntry(name));
    expect(listed).toEqual(entry);
    expect(entry).toMatchObject({
      technicalName: name,
      lifecycleStatus: 'PUBLISHED',
      type: 'IN_VEHICLE',
      personalData: false,
      deliveryMethod: item.deliveryMethod,
    });
    expect('event' in entry ? entry.event : 'absent').toBe(item.event ? true : 'absent');
    expect(typeof entry.name === 'string' && entry.name.length > 0).toBe(true);
    if (item.description && name !== CHANGED_IN_VERSION_2) expect(entry.description).toBe(item.description);
    expect((entry.schema as Record<string, unknown>).$schema).toBe('http://json-schema.org/draft-04/schema#');
  });

  it('filters by delivery method', async () => {
    const push = (await get('/catalog/v1/data-items?deliveryMethod=push')).json<{ technicalName: string; event?: boolean }[]>();
    expect(push.map((e) => e.technicalName)).toEqual(['accidentautomatic', 'accidentcallmanual', 'automaticteleservicecall']);
    expect(push.every((e) => e.event === true)).toBe(true);
    const pull = (await get('/catalog/v1/data-items?deliveryMethod=pull')).json<{ deliveryMethod: string; event?: boolean }[]>();
    expect(pull).toHaveLength(ALL_ITEMS.length - 3);
    expect(pull).toHaveLength(71);
    expect(pull.every((e) => e.deliveryMethod === 'pull' && e.event === undefined)).toBe(true);
  });

  it.each([
    ['deliveryMethod=PUSH', 'Bad request, deliveryMethod must be pull or push.'],
    ['deliveryMethod=', 'Bad request, deliveryMethod must be pull or push.'],
    ['updatedSince=yesterday', 'Bad request, updatedSince must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z.'],
    ['updatedSince=2024-06-01T00:00:00', 'Bad request, updatedSince must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z.'],
    ['updatedSince=2024-02-30T00:00:00Z', 'Bad request, updatedSince must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z.'],
    ['updatedSince=2024-13-01T00:00:00Z', 'Bad request, updatedSince must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z.'],
    ['updatedSince=2024-06-01T25:00:00Z', 'Bad request, updatedSince must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z.'],
  ])('answers ?%s with 400 and the error body', async (query, reasonText) => {
    const res = await get(`/catalog/v1/data-items?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(res.json()).toEqual({ reasonCode: 'CAR.400', reasonText, url: '/catalog/v1/data-items', method: 'GET' });
  });
});

describe('GET /catalog/v1/data-items/:technicalName', () => {
  it('answers an unknown item with 404 and the error body', async () => {
    const res = await get('/catalog/v1/data-items/flux-capacitor');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      reasonCode: 'CAR.404',
      reasonText: 'Data item flux-capacitor not found.',
      url: '/catalog/v1/data-items/flux-capacitor',
      method: 'GET',
    });
  });

  it('is case-sensitive: technical names are lower case', async () => {
    expect((await get('/catalog/v1/data-items/BatteryVoltage')).statusCode).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('documents both catalog routes', async () => {
    const res = await get('/docs/json');
    expect(res.statusCode).toBe(200);
    const paths = res.json<{ paths: Record<string, { get?: { parameters?: { name: string }[] } }> }>().paths;
    expect(paths['/catalog/v1/data-items']?.get?.parameters?.map((p) => p.name).sort()).toEqual(['deliveryMethod', 'updatedSince']);
    expect(paths['/catalog/v1/data-items/{technicalName}']?.get).toBeDefined();
  });
});
