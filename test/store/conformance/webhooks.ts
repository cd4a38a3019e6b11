import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store, WebhookRecord } from '../../../src/store/contract.ts';
import type { ConformanceSuite } from './types.ts';

const T0 = '2026-03-01T10:00:00.000Z';

function webhook(subscriptionId: string, over: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    subscriptionId,
    url: 'https://hooks.example.com/in',
    secrets: [{ sealed: 'v1.sealed-a', createdAt: T0, expiresAt: null }],
    authorizationSealed: 'v1.sealed-auth',
    items: [],
    minIntervalSeconds: 60,
    notices: [],
    status: 'ENABLED',
    disabledReason: null,
    failingSince: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

const suite: ConformanceSuite = (open) => {
  describe('webhooks', () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => cleanup());

    it('stores, reads back, replaces and deletes one webhook per subscription', async () => {
      expect(await store.webhooks.get('sub-1')).toBeNull();
      await store.webhooks.put(webhook('sub-1'));
      expect(await store.webhooks.get('sub-1')).toEqual(webhook('sub-1'));
      const replaced = webhook('sub-1', { url: 'https://other.example.com/', items: ['crashseverity'], notices: ['consent.revoked', 'vehicle.data_erased'], updatedAt: T0 });
      await store.webhooks.put(replaced);
      expect(await store.webhooks.get('sub-1')).toEqual(replaced);
      expect(await store.webhooks.delete('sub-1')).toBe(true);
      expect(await store.webhooks.delete('sub-1')).toBe(false);
      expect(await store.webhooks.get('sub-1')).toBeNull();
    });

    it('lists only the webhooks that watch pull items', async () => {
      await store.webhooks.put(webhook('sub-a'));
      await store.webhooks.put(webhook('sub-b', { items: ['batteryvoltage', 'crashseverity'], minIntervalSeconds: 5 }));
      expect(await store.webhooks.listWatching()).toEqual([
        { subscriptionId: 'sub-b', items: ['batteryvoltage', 'crashseverity'], minIntervalSeconds: 5 },
      ]);
    });

    it('replaces the secrets for a rotation, and reports a missing webhook', async () => {
      await store.webhooks.put(webhook('sub-1'));
      const secrets = [
        { sealed: 'v1.sealed-b', createdAt: '2026-03-02T00:00:00.000Z', expiresAt: null },
        { sealed: 'v1.sealed-a', createdAt: T0, expiresAt: '2026-03-03T00:00:00.000Z' },
      ];
      expect(await store.webhooks.setSecrets('sub-1', secrets, '2026-03-02T00:00:00.000Z')).toBe(true);
      const got = await store.webhooks.get('sub-1');
      expect(got?.secrets).toEqual(secrets);
      expect(got?.updatedAt).toBe('2026-03-02T00:00:00.000Z');
      expect(await store.webhooks.setSecrets('nope', secrets, T0)).toBe(false);
    });

    it('keeps the start of a run of failures until a success clears it', async () => {
      await store.webhooks.put(webhook('sub-1'));
      expect(await store.webhooks.recordFailure('sub-1', '2026-03-01T11:00:00.000Z')).toBe('2026-03-01T11:00:00.000Z');
      expect(await store.webhooks.recordFailure('sub-1', '2026-03-01T12:00:00.000Z')).toBe('2026-03-01T11:00:00.000Z');
      await store.webhooks.recordSuccess('sub-1');
      expect((await store.webhooks.get('sub-1'))?.failingSince).toBeNull();
      expect(await store.webhooks.recordFailure('sub-1', '2026-03-01T13:00:00.000Z')).toBe('2026-03-01T13:00:00.000Z');
      expect(await store.webhooks.recordFailure('missing', T0)).toBeNull();
    });

    it('disables once, with the reason, and a new put enables again', async () => {
      await store.webhooks.put(webhook('sub-1'));
      expect(await store.webhooks.disable('sub-1', 'endpoint answered 410 Gone', '2026-03-01T12:00:00.000Z')).toBe(true);
      expect(await store.webhooks.disable('sub-1', 'second reason', '2026-03-01T13:00:00.000Z')).toBe(false);
      const got = await store.webhooks.get('sub-1');
      expect(got).toMatchObject({ status: 'DISABLED', disabledReason: 'endpoint answered 410 Gone', updatedAt: '2026-03-01T12:00:00.000Z' });
      await store.webhooks.put(webhook('sub-1'));
      expect((await store.webhooks.get('sub-1'))?.status).toBe('ENABLED');
      expect(await store.webhooks.disable('missing', 'x', T0)).toBe(false);
    });

    it('keeps several endpoints per subscription apart, each with its own secret, filter and state; the default one as before', async () => {
      const alerts = webhook('sub-1', { endpointId: 'alerts', url: 'https://alerts.example.com/', events: ['accidentautomatic'], secrets: [{ sealed: 'v1.sealed-b', createdAt: T0, expiresAt: null }] });
      const archive = webhook('sub-1', { endpointId: 'archive', items: ['mileage'], minIntervalSeconds: 600 });
      await store.webhooks.put(archive);
      await store.webhooks.put(alerts);
      await store.webhooks.put(webhook('sub-1'));
      await store.webhooks.put(webhook('sub-2', { endpointId: 'alerts' }));
      expect(await store.webhooks.get('sub-1')).toEqual(webhook('sub-1'));
      expect(await store.webhooks.get('sub-1', 'default')).toEqual(webhook('sub-1'));
      expect(await store.webhooks.get('sub-1', 'alerts')).toEqual(alerts);
      expect(await store.webhooks.get('sub-1', 'nope')).toBeNull();
      expect((await store.webhooks.list('sub-1')).map((w) => w.endpointId ?? 'default')).toEqual(['default', 'alerts', 'archive']);
      expect(await store.webhooks.list('sub-3')).toEqual([]);
      expect(await store.webhooks.listWatching()).toEqual([{ subscriptionId: 'sub-1', endpointId: 'archive', items: ['mileage'], minIntervalSeconds: 600 }]);

      // Failures, disabling and secrets of one endpoint leave the others alone.
      expect(await store.webhooks.recordFailure('sub-1', '2026-03-01T11:00:00.000Z', 'alerts')).toBe('2026-03-01T11:00:00.000Z');
      expect(await store.webhooks.disable('sub-1', 'gone', '2026-03-01T12:00:00.000Z', 'alerts')).toBe(true);
      expect(await store.webhooks.setSecrets('sub-1', [{ sealed: 'v1.sealed-c', createdAt: T0, expiresAt: null }], T0, 'archive')).toBe(true);
      expect(await store.webhooks.get('sub-1')).toEqual(webhook('sub-1'));
      expect(await store.webhooks.get('sub-2', 'alerts')).toMatchObject({ status: 'ENABLED', failingSince: null });
      expect((await store.webhooks.get('sub-1', 'archive'))?.secrets[0]?.sealed).toBe('v1.sealed-c');
      await store.webhooks.recordSuccess('sub-1', 'alerts');
      expect(await store.webhooks.get('sub-1', 'alerts')).toMatchObject({ status: 'DISABLED', failingSince: null, events: ['accidentautomatic'] });

      expect(await store.webhooks.delete('sub-1', 'alerts')).toBe(true);
      expect(await store.webhooks.delete('sub-1', 'alerts')).toBe(false);
      expect((await store.webhooks.list('sub-1')).map((w) => w.endpointId ?? 'default')).toEqual(['default', 'archive']);
      expect(await store.webhooks.get('sub-2', 'alerts')).not.toBeNull();
    });
  });
};

export default suite;
