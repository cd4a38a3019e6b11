import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../src/store/contract.ts';
import type { ConformanceSuite, StoreFactory } from './types.ts';

const event = (over: Partial<AuditEvent> = {}): AuditEvent => ({
  type: 'consent.code_replayed',
  at: '2024-05-01T10:00:00.000Z',
  subject: 'consent-1',
  details: { ip: '203.0.113.9', attempts: 2, nested: { ok: false } },
  ...over,
});

const suite: ConformanceSuite = (open: StoreFactory) => {
  describe('audit', () => {
    let ctx: Awaited<ReturnType<StoreFactory>>;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    it('records events and lists them oldest first, details intact', async () => {
      const { audit } = ctx.store;
      expect(await audit.list()).toEqual([]);
      const later = event({ at: '2024-05-02T00:00:00.000Z', subject: null, type: 'vin.erased', details: {} });
      await audit.record(later);
      await audit.record(event());
      expect(await audit.list()).toEqual([event(), later]);
    });

    it('keeps identical events apart (an append-only log, no dedup)', async () => {
      await ctx.store.audit.record(event());
      await ctx.store.audit.record(event());
      expect(await ctx.store.audit.list()).toHaveLength(2);
    });

    it('filters by type, by subject and by both', async () => {
      const { audit } = ctx.store;
      await audit.record(event({ type: 'a', subject: 'x', at: '2024-05-01T00:00:01.000Z' }));
      await audit.record(event({ type: 'a', subject: 'y', at: '2024-05-01T00:00:02.000Z' }));
      await audit.record(event({ type: 'b', subject: 'x', at: '2024-05-01T00:00:03.000Z' }));
      const pairs = (events: AuditEvent[]) => events.map((e) => `${e.type}/${e.subject}`);
      expect(pairs(await audit.list({ type: 'a' }))).toEqual(['a/x', 'a/y']);
      expect(pairs(await audit.list({ subject: 'x' }))).toEqual(['a/x', 'b/x']);
      expect(pairs(await audit.list({ type: 'b', subject: 'x' }))).toEqual(['b/x']);
      expect(pairs(await audit.list({}))).toEqual(['a/x', 'a/y', 'b/x']);
      expect(await audit.list({ type: 'none' })).toEqual([]);
    });

    it('keeps every event written concurrently by two processes', async () => {
      const peer = await ctx.openPeer();
      const writers = [ctx.store, peer];
      await Promise.all(Array.from({ length: 20 }, (_, i) => writers[i % 2]!.audit.record(event({ subject: `s-${i}` }))));
      expect((await peer.audit.list({ type: event().type })).map((e) => e.subject).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `s-${i}`).sort(),
      );
    });
  });
};

export default suite;
