import { randomUUID } from 'node:crypto';
import { newSecret } from '../../src/consent/secrets.ts';
import { addApiKey, listApiKeys, listSubscriptions, revokeApiKey } from '../../src/provisioning/index.ts';
import { seedProcess } from '../consent/seed.ts';
import { giveConsent, payloadFor, seedPoints, setVehicle, VIN1, VIN2, VIN3, VIN4 } from '../delivery/fixtures.ts';
import { addConsumer, type TestApp, type TestConsumer } from '../helpers/app.ts';
import type { Actor, OwnMarker } from './authz-matrix.ts';

/** Activated in A's subscription only, consented nowhere (the `unconsentedVin` probe). */
export const VIN5 = 'V1RTUALV1N0000005';
export const MATRIX_ITEM = 'batteryvoltage';
/** The admin token test/helpers/services.ts configures. */
export const ADMIN_TOKEN = 'test-admin-token';

/** What a matrix placeholder can name (authz-matrix.ts). */
export interface Objects {
  vin: string;
  consentId: string;
  code: string;
  transactionId: string;
  consumerId: string;
  subscriptionId: string;
  keyId: string;
}

export interface Tenant {
  consumer: TestConsumer;
  revokedKey: string;
  objects: Objects;
  /** Values the tenant's own successful answers show. */
  own: Record<OwnMarker, string>;
  /** Every value of this tenant that must not appear in an answer to anyone else. */
  secrets: string[];
}

export interface World {
  a: Tenant;
  b: Tenant;
  /** Objects that exist nowhere: the `missingObject` probe. */
  missing(): Objects;
}

/** Each VIN's stored battery voltage differs, so a value in a body tells whose vehicle it is. */
const VALUES: Record<string, number> = { [VIN1]: 1111, [VIN2]: 7777, [VIN3]: 3333, [VIN4]: 4444, [VIN5]: 5555 };

function dataValue(t: TestApp, vin: string): string {
  return String(payloadFor(MATRIX_ITEM, t.services.clock.now(), VALUES[vin]).value);
}

/** A finished (DEAD) push delivery, as the push worker leaves one after its last attempt. */
async function seedDeadDelivery(t: TestApp, subscriptionId: string, vin: string): Promise<string> {
  const at = t.services.clock.now().toISOString();
  const transactionId = randomUUID();
  await t.services.store.deliveries.insertIfAbsent({
    transactionId,
    subscriptionId,
    vin,
    item: 'accidentautomatic',
    kind: 'event',
    timestampMs: Date.parse(at),
    payload: { receivedAt: at, timestamp: at },
    status: 'DEAD',
    attempts: [],
    lastError: 'the endpoint answered 500',
    nextAttemptAt: null,
    createdAt: at,
    updatedAt: at,
  });
  return transactionId;
}

/** One tenant: subscription, keys, an activated and consented VIN, a code, a webhook, a delivery. */
async function seedTenant(t: TestApp, name: string, vin: string): Promise<Tenant> {
  const consumer = await addConsumer(t, { name });
  const [firstKey] = await listApiKeys(t.services, consumer.consumerId);
  const revoked = await addApiKey(t.services, consumer.consumerId);
  await revokeApiKey(t.services, consumer.consumerId, revoked.keyId);
  await setVehicle(t, consumer, vin);
  const { code, record } = await seedProcess(t, consumer, { vin });
  const webhookUrl = `http://127.0.0.1:9/hook-${name}-${randomUUID().slice(0, 8)}`;
  const put = await t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: consumer.headers, payload: { url: webhookUrl } });
  if (put.statusCode !== 200) throw new Error(`webhook set-up failed: ${put.statusCode} ${put.body}`);
  const transactionId = await seedDeadDelivery(t, consumer.subscriptionId, vin);
  const objects: Objects = {
    vin,
    consentId: record.consentId,
    code,
    transactionId,
    consumerId: consumer.consumerId,
    subscriptionId: consumer.subscriptionId,
    keyId: firstKey!.keyId,
  };
  const own = { vin, consentId: record.consentId, transactionId, webhookUrl, dataValue: dataValue(t, vin) };
  const secrets = [...Object.values(own), code, consumer.consumerId, consumer.subscriptionId, consumer.apiKey, revoked.apiKey];
  return { consumer, revokedKey: revoked.apiKey, objects, own, secrets: [...secrets, put.json().signingSecret as string] };
}

/**
 * A fresh world for one matrix row (see authz-matrix.ts): A owns VIN1, B owns VIN2, VIN4 is
 * activated in both but consented only in B's subscription, VIN5 is activated in A's only,
 * VIN3 nowhere. Every VIN has data, so "no data" never explains a refusal.
 */
export async function createWorld(t: TestApp): Promise<World> {
  const now = t.services.clock.now();
  // Idempotent (existing points are skipped); restores what an admin erasure row removed.
  for (const vin of Object.keys(VALUES)) await seedPoints(t, vin, [MATRIX_ITEM], now, VALUES[vin]);
  const a = await seedTenant(t, 'A', VIN1);
  const b = await seedTenant(t, 'B', VIN2);
  await setVehicle(t, a.consumer, VIN4);
  await setVehicle(t, b.consumer, VIN4);
  b.secrets.push(await giveConsent(t, b.consumer, VIN4));
  await setVehicle(t, a.consumer, VIN5);
  return {
    a,
    b,
    missing: () => ({
      vin: VIN3,
      consentId: randomUUID(),
      code: newSecret().value,
      transactionId: randomUUID(),
      consumerId: randomUUID(),
      subscriptionId: randomUUID(),
      keyId: randomUUID(),
    }),
  };
}

/** The credentials each actor presents (authz-matrix.ts, ACTORS). */
export function actorHeaders(w: World, actor: Actor): Record<string, string> {
  const a = w.a.consumer;
  const sub = { 'x-subscription-id': a.subscriptionId };
  switch (actor) {
    case 'owner':
    case 'foreignObject':
    case 'foreignConsent':
      return a.headers;
    case 'ownKeyForeignSub':
      return { 'x-api-key': a.apiKey, 'x-subscription-id': w.b.consumer.subscriptionId };
    case 'foreignKeyOwnSub':
      return { 'x-api-key': w.b.consumer.apiKey, ...sub };
    case 'revokedKey':
      return { 'x-api-key': w.a.revokedKey, ...sub };
    case 'noKey':
      return sub;
    case 'adminToken':
      return { authorization: `Bearer ${ADMIN_TOKEN}`, ...sub };
    case 'adminTokenAsKey':
      return { 'x-api-key': ADMIN_TOKEN, ...sub };
    case 'keyAsBearer':
      return { authorization: `Bearer ${a.apiKey}`, ...sub };
  }
}

/**
 * What a tenant has in the store, for "a refused request changed nothing": activations,
 * consents, webhook, deliveries, keys and subscriptions.
 */
export async function tenantState(t: TestApp, tenant: Tenant): Promise<string> {
  const { store } = t.services;
  const { consumerId, subscriptionId } = tenant.consumer;
  return JSON.stringify({
    vehicles: await store.vehicles.listBySubscription(subscriptionId),
    consents: await store.consents.listBySubscription(subscriptionId, {}),
    webhook: await store.webhooks.get(subscriptionId),
    deliveries: await store.deliveries.list({ subscriptionId, limit: 1000 }),
    keys: await listApiKeys(t.services, consumerId),
    subscriptions: await listSubscriptions(t.services, { consumerId }),
    consumers: (await store.consumers.list()).length,
  });
}
