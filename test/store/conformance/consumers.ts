import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../../src/store/contract.ts';
import { DuplicateKeyError } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory, UniqueIndex } from './types.ts';

/** Table and field names compared without case or underscores: api_keys.key_hash = apiKeys.keyHash. */
const norm = (s: string) => s.replace(/_/g, '').toLowerCase();
const hasUnique = (found: UniqueIndex[], table: string, fields: string[]) =>
  found.some((i) => norm(i.table) === norm(table) && i.fields.map(norm).join() === fields.map(norm).join());

const key = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  keyId: 'key-1',
  consumerId: 'c-1',
  keyHash: 'a'.repeat(64),
  displayPrefix: 'cvd_live_AbCd',
  createdAt: '2024-05-01T10:00:00.000Z',
  revokedAt: null,
  ...over,
});

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('consumers', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('creates, gets, lists and counts consumers', async () => {
      const { consumers } = ctx.store;
      expect(await consumers.count()).toBe(0);
      expect(await consumers.list()).toEqual([]);
      await consumers.create({ consumerId: 'c-2', name: 'Beta', createdAt: '2024-05-02T00:00:00.000Z' });
      await consumers.create({ consumerId: 'c-1', name: 'Alpha', createdAt: '2024-05-01T00:00:00.000Z' });
      expect(await consumers.get('c-1')).toEqual({ consumerId: 'c-1', name: 'Alpha', createdAt: '2024-05-01T00:00:00.000Z' });
      expect(await consumers.get('nope')).toBeNull();
      expect((await consumers.list()).map((c) => c.consumerId)).toEqual(['c-1', 'c-2']);
      expect(await consumers.count()).toBe(2);
    });

    it('refuses a second consumer with the same id', async () => {
      const { consumers } = ctx.store;
      await consumers.create({ consumerId: 'c-1', name: 'Alpha', createdAt: '2024-05-01T00:00:00.000Z' });
      await expect(consumers.create({ consumerId: 'c-1', name: 'Other', createdAt: '2024-05-03T00:00:00.000Z' })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      expect((await consumers.get('c-1'))?.name).toBe('Alpha');
    });

    it('stores an API key and finds it by hash, revoked or not', async () => {
      const { consumers } = ctx.store;
      await consumers.addApiKey(key());
      expect(await consumers.findApiKeyByHash('a'.repeat(64))).toEqual(key());
      expect(await consumers.findApiKeyByHash('b'.repeat(64))).toBeNull();
      expect(await consumers.revokeApiKey('c-1', 'key-1', '2024-06-01T00:00:00.000Z')).toBe(true);
      expect((await consumers.findApiKeyByHash('a'.repeat(64)))?.revokedAt).toBe('2024-06-01T00:00:00.000Z');
    });

    it('refuses a second key with the same hash', async () => {
      const { consumers } = ctx.store;
      await consumers.addApiKey(key());
      await expect(consumers.addApiKey(key({ keyId: 'key-2', consumerId: 'c-2' }))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await consumers.listApiKeys('c-2')).toEqual([]);
    });

    it('lists one consumer’s keys oldest first', async () => {
      const { consumers } = ctx.store;
      await consumers.addApiKey(key({ keyId: 'k2', keyHash: '2'.repeat(64), createdAt: '2024-05-02T00:00:00.000Z' }));
      await consumers.addApiKey(key({ keyId: 'k1', keyHash: '1'.repeat(64), createdAt: '2024-05-01T00:00:00.000Z' }));
      await consumers.addApiKey(key({ keyId: 'k3', keyHash: '3'.repeat(64), consumerId: 'c-other' }));
      expect((await consumers.listApiKeys('c-1')).map((k) => k.keyId)).toEqual(['k1', 'k2']);
      expect(await consumers.listApiKeys('nobody')).toEqual([]);
    });

    it('revokes a key once, only for its own consumer, keeping the first revocation time', async () => {
      const { consumers } = ctx.store;
      await consumers.addApiKey(key());
      expect(await consumers.revokeApiKey('c-other', 'key-1', '2024-06-01T00:00:00.000Z')).toBe(false);
      expect(await consumers.revokeApiKey('c-1', 'missing', '2024-06-01T00:00:00.000Z')).toBe(false);
      expect((await consumers.findApiKeyByHash(key().keyHash))?.revokedAt).toBeNull();
      expect(await consumers.revokeApiKey('c-1', 'key-1', '2024-06-01T00:00:00.000Z')).toBe(true);
      expect(await consumers.revokeApiKey('c-1', 'key-1', '2024-07-01T00:00:00.000Z')).toBe(false);
      expect((await consumers.listApiKeys('c-1'))[0]?.revokedAt).toBe('2024-06-01T00:00:00.000Z');
    });

    it('lets exactly one of 20 concurrent writers (two processes) add the same key hash', async () => {
      const peer = await ctx.openPeer();
      const writers = [ctx.store, peer];
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => writers[i % 2]!.consumers.addApiKey(key({ keyId: `key-${i}`, consumerId: `c-${i}` }))),
      );
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateKeyError);
      // Both processes see the single winner.
      for (const s of writers) expect((await s.consumers.findApiKeyByHash(key().keyHash))?.keyId).toBe(`key-${won[0]}`);
    });

    it('one process revokes, the other sees it at once and cannot revoke again', async () => {
      const peer = await ctx.openPeer();
      await ctx.store.consumers.addApiKey(key());
      expect(await peer.consumers.revokeApiKey('c-1', 'key-1', '2024-06-01T00:00:00.000Z')).toBe(true);
      expect((await ctx.store.consumers.findApiKeyByHash(key().keyHash))?.revokedAt).toBe('2024-06-01T00:00:00.000Z');
      expect(await ctx.store.consumers.revokeApiKey('c-1', 'key-1', '2024-06-02T00:00:00.000Z')).toBe(false);
    });

    it('has the unique indexes in the database itself', async () => {
      await ctx.store.consumers.count();
      const found = await ctx.uniqueIndexes();
      expect(hasUnique(found, 'api_keys', ['key_hash'])).toBe(true);
      expect(hasUnique(found, 'api_keys', ['key_id'])).toBe(true);
      expect(hasUnique(found, 'consumers', ['consumer_id'])).toBe(true);
    });
  });
};

export default suite;
