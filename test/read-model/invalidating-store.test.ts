import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/auth/api-keys.ts';
import type { Invalidation } from '../../src/read-model/invalidation.ts';
import { invalidatingStore } from '../../src/read-model/invalidating-store.ts';
import type { Store } from '../../src/store/contract.ts';
import { openStore } from '../../src/store/open-store.ts';
import { activeConsentRecord } from '../helpers/consents.ts';

/*
 * What each write through the service's store tells the read models (src/read-model), on the
 * real SQLite store: reads publish nothing; a write publishes what it made stale, after it
 * returned (and after it failed, since a failed write may have changed something).
 */
describe('invalidating store', () => {
  const AT = '2026-03-01T09:00:00.000Z';
  const VIN = 'V1RTUALV1N0000001';
  let dir: string;
  let raw: Store;
  let store: Store;
  const published: Invalidation[] = [];
  const take = () => published.splice(0);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-inv-'));
    raw = await openStore({ MONGO_URL: undefined, MONGO_DB: 'cvd', DATA_DIR: dir });
    store = invalidatingStore(raw, async (inv) => {
      published.push(inv);
    });
  });
  afterAll(async () => {
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keys and subscriptions: every write drops the authentication answers; reads publish nothing', async () => {
    const consumerId = randomUUID();
    await store.consumers.create({ consumerId, name: 'c', createdAt: AT });
    const { record } = newApiKey(consumerId, new Date(AT));
    await store.consumers.addApiKey(record);
    await store.subscriptions.create({ subscriptionId: randomUUID(), consumerId, dataItems: ['mileage'], allowedRedirectUrls: [], legalBasis: 'CONSENT', createdAt: AT });
    expect(take()).toEqual([{ kind: 'keys' }, { kind: 'keys' }, { kind: 'keys' }]);
    await store.consumers.findApiKeyByHash(record.keyHash);
    await store.consumers.listApiKeys(consumerId);
    expect(take()).toEqual([]);
    await store.consumers.revokeApiKey(consumerId, record.keyId, AT);
    expect(take()).toEqual([{ kind: 'keys' }]);
  });

  it('activations and consents: the subscription concerned; erasure by VIN: everything', async () => {
    const subscriptionId = randomUUID();
    await store.vehicles.upsert({ subscriptionId, vin: VIN, manufacturer: 'virtual', status: 'ACTIVATED', createdAt: AT, updatedAt: AT });
    await store.vehicles.transition(subscriptionId, VIN, ['ACTIVATED'], 'PENDING_DEACTIVATION', AT);
    const consent = activeConsentRecord(AT, { consumerId: randomUUID(), subscriptionId, vin: VIN });
    await store.consents.create(consent);
    await store.consents.transition({ consentId: consent.consentId }, { from: ['ACTIVE'], to: 'REVOKED', at: AT });
    expect(take()).toEqual(Array.from({ length: 4 }, () => ({ kind: 'access', subscriptionId })));
    // A conditional update that matched nothing changed nothing.
    await store.consents.transition({ consentId: consent.consentId }, { from: ['ACTIVE'], to: 'REVOKED', at: AT });
    await store.vehicles.getMany(subscriptionId, [VIN]);
    await store.consents.activeVins(subscriptionId, [VIN]);
    expect(take()).toEqual([]);
    // Retention of ended processes changes no access decision; erasure by VIN changes them all.
    await store.consents.deleteChangedBefore(['REVOKED'], '2030-01-01T00:00:00.000Z', { neverActive: true });
    expect(take()).toEqual([]);
    await store.consents.deleteByVin(VIN);
    await store.vehicles.deleteByVin(VIN);
    expect(take()).toEqual([{ kind: 'all' }, { kind: 'all' }]);
  });

  it('data points: every VIN of a stored batch, also for points stored before (a retried batch)', async () => {
    const point = (vin: string, t: number) => ({ vin, item: 'mileage', timestampMs: t, payload: { value: t, unit: 'KILOMETERS', timestamp: AT }, manufacturer: 'virtual', mappingVersion: 't', receivedAt: AT });
    const batch = [point(VIN, 1), point('V1RTUALV1N0000002', 1), point(VIN, 2)];
    await store.dataPoints.insertMany(batch);
    await store.dataPoints.insertMany(batch);
    expect(take()).toEqual([
      { kind: 'data', vins: [VIN, 'V1RTUALV1N0000002'] },
      { kind: 'data', vins: [VIN, 'V1RTUALV1N0000002'] },
    ]);
    await store.dataPoints.deleteOlderThan(10);
    expect(take()).toEqual([]);
  });

  it('a write that fails still publishes (it may have changed part of what it touched)', async () => {
    const failing = invalidatingStore(
      { ...raw, vehicles: { ...raw.vehicles, transition: async () => Promise.reject(new Error('disk on fire')) } },
      async (inv) => {
        published.push(inv);
      },
    );
    await expect(failing.vehicles.transition('sub-x', VIN, ['ACTIVATED'], 'DEACTIVATED', AT)).rejects.toThrow('disk on fire');
    expect(take()).toEqual([{ kind: 'access', subscriptionId: 'sub-x' }]);
  });
});
