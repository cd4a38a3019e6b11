import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, authenticateApiKey } from '../../src/auth/api-keys.ts';
import { ManualClock } from '../../src/clock.ts';
import { ApiError } from '../../src/errors.ts';
import {
  addApiKey,
  createConsumer,
  createSubscription,
  getSubscription,
  listApiKeys,
  listSubscriptions,
  revokeApiKey,
} from '../../src/provisioning/index.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('provisioning (plain functions on the real SQLite store)', () => {
  let t: TestServices;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    t = await createTestServices({ clock });
  });
  afterEach(async () => t.cleanup());

  it('creates a consumer with a prefixed 256-bit key, stored only as a hash', async () => {
    const c = await createConsumer(t.services, '  Acme Fleet  ');
    expect(c.consumerId).toMatch(UUID);
    expect(c.name).toBe('Acme Fleet');
    expect(c.apiKey).toMatch(API_KEY_PATTERN);
    expect(c.displayPrefix).toBe(c.apiKey.slice(0, 13));
    expect((await authenticateApiKey(t.services.store, c.apiKey))?.consumer.consumerId).toBe(c.consumerId);

    // Dump every file of the store: the clear key is nowhere, its hash is.
    await t.services.store.close();
    const dump = readdirSync(t.dataDir)
      .filter((f) => f.startsWith('store.sqlite'))
      .map((f) => readFileSync(join(t.dataDir, f)).toString('latin1'))
      .join('');
    expect(dump.length).toBeGreaterThan(0);
    expect(dump).not.toContain(c.apiKey);
    expect(dump).not.toContain(c.apiKey.slice(13));
  });

  it('issues different keys every time', async () => {
    const a = await createConsumer(t.services, 'A');
    const b = await addApiKey(t.services, a.consumerId);
    expect(b.apiKey).not.toBe(a.apiKey);
    expect(b.keyId).not.toBe(a.keyId);
  });

  it('refuses empty, overlong or control-character names and stores nothing', async () => {
    for (const name of ['', '   ', 'x'.repeat(201), 'a\nb', 42]) {
      expect((await rejection(createConsumer(t.services, name))).statusCode).toBe(400);
    }
    expect(await t.services.store.consumers.count()).toBe(0);
  });

  it('rotation: a new key works next to the old one until the old one is revoked, at once', async () => {
    const c = await createConsumer(t.services, 'Rotating');
    const second = await addApiKey(t.services, c.consumerId);
    expect(await authenticateApiKey(t.services.store, c.apiKey)).not.toBeNull();
    expect(await authenticateApiKey(t.services.store, second.apiKey)).not.toBeNull();

    clock.advance(60_000);
    const { key, revokedNow } = await revokeApiKey(t.services, c.consumerId, c.keyId);
    expect(revokedNow).toBe(true);
    expect(key.revokedAt).toBe('2026-03-01T10:01:00.000Z');
    expect(await authenticateApiKey(t.services.store, c.apiKey)).toBeNull();
    expect(await authenticateApiKey(t.services.store, second.apiKey)).not.toBeNull();

    const keys = await listApiKeys(t.services, c.consumerId);
    expect(keys.map((k) => [k.keyId, k.revokedAt !== null]).sort()).toEqual(
      [
        [c.keyId, true],
        [second.keyId, false],
      ].sort(),
    );
    expect(JSON.stringify(keys)).not.toContain(c.apiKey);
    expect(JSON.stringify(keys)).not.toContain(second.apiKey);
    for (const k of keys) expect(Object.keys(k).sort()).toEqual(['createdAt', 'displayPrefix', 'keyId', 'revokedAt']);

    const audit = await t.services.store.audit.list({ type: 'api_key.revoked' });
    expect(audit).toEqual([{ type: 'api_key.revoked', at: '2026-03-01T10:01:00.000Z', subject: c.keyId, details: { consumerId: c.consumerId } }]);
  });

  it('revoking again changes nothing; unknown keys and consumers are 404', async () => {
    const c = await createConsumer(t.services, 'C');
    await revokeApiKey(t.services, c.consumerId, c.keyId);
    const again = await revokeApiKey(t.services, c.consumerId, c.keyId);
    expect(again.revokedNow).toBe(false);
    expect((await t.services.store.audit.list({ type: 'api_key.revoked' })).length).toBe(1);
    expect((await rejection(revokeApiKey(t.services, c.consumerId, 'no-such-key'))).statusCode).toBe(404);
    const other = await createConsumer(t.services, 'Other');
    // Another consumer's key id is "not found" for this consumer, and stays valid.
    expect((await rejection(revokeApiKey(t.services, c.consumerId, other.keyId))).statusCode).toBe(404);
    expect(await authenticateApiKey(t.services.store, other.apiKey)).not.toBeNull();
    expect((await rejection(addApiKey(t.services, 'no-such-consumer'))).statusCode).toBe(404);
    expect((await rejection(listApiKeys(t.services, 'no-such-consumer'))).statusCode).toBe(404);
  });

  describe('subscriptions', () => {
    it('creates one with a UUID, defaults to CONSENT, drops duplicate items', async () => {
      const c = await createConsumer(t.services, 'Subscriber');
      const s = await createSubscription(t.services, {
        consumerId: c.consumerId,
        dataItems: ['mileage', 'fuellevel', 'mileage'],
        allowedRedirectUrls: ['https://app.example.com/cb'],
      });
      expect(s).toEqual({
        subscriptionId: expect.stringMatching(UUID),
        consumerId: c.consumerId,
        dataItems: ['mileage', 'fuellevel'],
        allowedRedirectUrls: ['https://app.example.com/cb'],
        legalBasis: 'CONSENT',
        createdAt: '2026-03-01T10:00:00.000Z',
      });
      expect(await getSubscription(t.services, s.subscriptionId)).toEqual(s);
      expect(await listSubscriptions(t.services, { consumerId: c.consumerId })).toEqual([s]);
      expect(await listSubscriptions(t.services, { consumerId: 'someone-else' })).toEqual([]);
    });

    it('keeps an explicit legal basis and accepts no redirect URLs at all', async () => {
      const c = await createConsumer(t.services, 'Contract');
      const s = await createSubscription(t.services, { consumerId: c.consumerId, dataItems: ['mileage'], legalBasis: 'CONTRACT' });
      expect(s.legalBasis).toBe('CONTRACT');
      expect(s.allowedRedirectUrls).toEqual([]);
    });

    it('refuses bad input with a 400 naming the problem, and stores nothing', async () => {
      const c = await createConsumer(t.services, 'Strict');
      const base = { consumerId: c.consumerId, dataItems: ['mileage'] };
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ ...base, consumerId: 'nobody' }, /consumer not found/],
        [{ ...base, dataItems: ['mileage', 'warpdrive', 'fluxcapacitor'] }, /unknown data items: warpdrive, fluxcapacitor/],
        [{ ...base, dataItems: [] }, /non empty list of DataItems/],
        [{ ...base, dataItems: 'mileage' }, /dataItems must be an array/],
        [{ ...base, legalBasis: 'WHIM' }, /legalBasis must be one of CONSENT, CONTRACT, LEGITIMATE_INTEREST/],
        [{ ...base, allowedRedirectUrls: ['http://app.example.com/cb'] }, /must use https/],
        [{ ...base, allowedRedirectUrls: ['https://app.example.com/cb#x'] }, /fragment/],
        [{ ...base, allowedRedirectUrls: 'https://app.example.com/cb' }, /array of strings/],
      ];
      for (const [input, text] of cases) {
        const err = await rejection(createSubscription(t.services, input as never));
        expect(err.statusCode, JSON.stringify(input)).toBe(400);
        expect(err.reasonText).toMatch(text);
      }
      expect(await listSubscriptions(t.services)).toEqual([]);
    });

    it('an unknown subscription is a 404', async () => {
      expect((await rejection(getSubscription(t.services, '7d3c1f9e-0000-4000-8000-000000000000'))).statusCode).toBe(404);
      expect((await rejection(getSubscription(t.services, 'x'.repeat(500)))).statusCode).toBe(404);
    });
  });
});
