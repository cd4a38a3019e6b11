import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import type { Resolver } from '../../src/push/ssrf/resolver.ts';
import { startPushWorkers } from '../../src/push/start.ts';
import { transactionId } from '../../src/push/message/transaction-id.ts';
import { putWebhook } from '../../src/push/webhooks/webhook-config.ts';
import type { Running } from '../../src/running.ts';
import { addConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { crashPoint, deliveryWithStatus, S08, seedConsent, seedVehicle, startReceiver, type Receiver } from './helpers.ts';

/*
 * The SSRF guard on the whole delivery path with the DEFAULT setting (private targets refused):
 * the webhook is registered through the same code as PUT /push/v1/webhook while DNS answers a
 * public address; at delivery DNS answers a reserved one. The worker must refuse to connect.
 */
let t: TestServices;
let stub: Receiver;
const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close();
  await stub?.close();
  await t?.cleanup();
});

async function deliverWith(atDelivery: string[]): Promise<{ error: string | null; connections: number }> {
  t = await createTestServices({ clock: systemClock, env: { PUSH_RETRY_SCHEDULE_S: '0' } });
  stub = await startReceiver();
  const c = await addConsumer(t);
  const subscription = (await t.services.store.subscriptions.get(c.subscriptionId))!;
  let registered = false;
  const resolve: Resolver = async () =>
    registered ? atDelivery.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) : [{ address: '93.184.216.34', family: 4 }];
  await putWebhook(t.services, subscription, { url: `https://hooks.example.com:${stub.port}/in` }, resolve);
  registered = true;
  await seedVehicle(t.services, c.subscriptionId, S08);
  await seedConsent(t.services, c.consumerId, c.subscriptionId, S08);
  running.push(...(await startPushWorkers(t.services, { resolve })));
  const fanout = createPushFanoutEnqueuer(t.services);
  running.push({ name: 'fanout', close: () => fanout.close() });
  const point = crashPoint();
  await fanout.enqueue([point]);
  const id = transactionId(t.services.secrets, c.subscriptionId, S08, 'accidentautomatic', point.timestampMs);
  const dead = await deliveryWithStatus(t.services, id, 'DEAD');
  return { error: dead.lastError, connections: stub.connections };
}

describe('SSRF guard at delivery time (default setting)', () => {
  it.each([
    ['loopback', ['127.0.0.1']],
    ['IPv6 loopback', ['::1']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['NAT64 of loopback', ['64:ff9b::7f00:1']],
    ['cloud metadata', ['169.254.169.254']],
    ['private', ['10.0.0.7']],
    ['unique local IPv6', ['fd00::7']],
    ['unspecified', ['0.0.0.0']],
    ['CGNAT', ['100.64.0.1']],
    ['a public and a loopback answer', ['93.184.216.34', '127.0.0.1']],
  ])('a name that now resolves to %s is dead-lettered without a connection', async (_what, addresses) => {
    const res = await deliverWith(addresses);
    expect(res.error).toBe('blocked: the target resolves to a loopback, private or reserved address');
    expect(res.connections).toBe(0);
  });
});
