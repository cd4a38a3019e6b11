import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/run.ts';
import type { ManualClock } from '../../src/clock.ts';
import { closeServices, createServices } from '../../src/main/create-services.ts';
import { type Services } from '../../src/services.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/contract.ts';
import { deliveryBody, giveConsent, payloadFor, seedPoints, setVehicle, VIN1, VIN2, VIN3 } from '../delivery/fixtures.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { eventually } from '../ops/service-process.ts';
import { killSubscribers } from '../helpers/invalidation-channel.ts';
import { redisEnv } from '../helpers/redis-env.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

/*
 * The delivery read model (src/read-model) across processes: two API processes A and B on one
 * store and one Redis, each with its own cache, both listening on real sockets. B answers
 * deliveries (and so caches them); A takes the writes. Every write through A must change B's
 * very next answer, as it would with no cache at all. A write that cannot publish (a plain store
 * handle, as a CLI without Redis has) is bounded by READ_CACHE_MAX_AGE_MS; a lost invalidation
 * channel turns B's cache off until it is back.
 */
const T0 = new Date('2026-03-01T09:00:00.000Z');

describe('read model across two API processes', () => {
  let a: TestApp;
  let b: Services;
  let bApp: FastifyInstance;
  let aOrigin: string;
  let bOrigin: string;
  let raw: Store;
  let clock: ManualClock;

  beforeAll(async () => {
    a = await createTestApp({ env: { RATE_LIMIT_SUBSCRIPTION_MAX: '1000000', RATE_LIMIT_VEHICLE_MAX: '1000000' } });
    clock = a.services.clock as ManualClock;
    b = await createServices(a.services.config, a.services.logger, a.services.redisUrl, { clock });
    bApp = await buildApp(b, routeContexts(b));
    aOrigin = await a.app.listen({ port: 0, host: '127.0.0.1' });
    bOrigin = await bApp.listen({ port: 0, host: '127.0.0.1' });
    raw = await openStore(a.services.config);
    await eventually(() => a.services.cacheBus.live && b.cacheBus.live, 'both subscribed', 5000, 10);
  });
  afterAll(async () => {
    await bApp.close();
    await closeServices(b);
    await raw.close();
    await a.cleanup();
  });

  async function http(origin: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** B's answer for one VIN and item: the data point's value, or the error code. */
  async function readAtB(c: TestConsumer, vin: string, item = 'batteryvoltage'): Promise<unknown> {
    const res = await http(bOrigin, 'POST', '/delivery/v1/in-vehicle', c.headers, deliveryBody([vin], [item]));
    if (res.status !== 200) return res.status;
    const [entry] = res.body.inVehicleData;
    return entry.error ? entry.error.code : (entry.response[item].dataPoint?.value ?? entry.response[item].error.code);
  }

  async function consumerWithData(vin: string): Promise<{ c: TestConsumer; consentId: string }> {
    const c = await addConsumer(a, { dataItems: ['batteryvoltage'] });
    await setVehicle(a, c, vin);
    const consentId = await giveConsent(a, c, vin);
    await seedPoints(a, vin, ['batteryvoltage'], T0, 10);
    // Twice: the second answer comes from B's cache.
    expect(await readAtB(c, vin)).toBe(12.1);
    expect(await readAtB(c, vin)).toBe(12.1);
    return { c, consentId };
  }

  it('a consent revoked at A stops delivery at B on the next request', async () => {
    const { c, consentId } = await consumerWithData(VIN1);
    const res = await http(aOrigin, 'DELETE', `/consent/v1/consents/${consentId}`, c.headers);
    expect(res.body).toMatchObject({ state: 'REVOKED' });
    expect(await readAtB(c, VIN1)).toBe('CAR.VE.905');
  });

  it('a deactivation at A stops delivery at B on the next request', async () => {
    const { c } = await consumerWithData(VIN2);
    const res = await http(aOrigin, 'PUT', '/management/v1/vehicles', c.headers, { action: 'deactivate', vins: [VIN2] });
    expect(res.status).toBe(202);
    expect(await readAtB(c, VIN2)).toBe('CAR.VE.903');
  });

  it('an API key revoked at A is refused by B on the next request', async () => {
    const { c } = await consumerWithData(VIN3);
    const keys = await http(aOrigin, 'GET', `/admin/v1/consumers/${c.consumerId}/api-keys`, { authorization: 'Bearer test-admin-token' });
    const res = await http(aOrigin, 'DELETE', `/admin/v1/consumers/${c.consumerId}/api-keys/${keys.body[0].keyId}`, { authorization: 'Bearer test-admin-token' });
    expect(res.status).toBe(204);
    expect(await readAtB(c, VIN3)).toBe(401);
  });

  it('an API key revoked with the CLI (REDIS_URL set) is refused by B on the next request', async () => {
    const { c } = await consumerWithData('V1RTUALV1N0000007');
    const [key] = await a.services.store.consumers.listApiKeys(c.consumerId);
    let stderr = '';
    const code = await runCli(['keys', 'revoke', '--consumer', c.consumerId, '--key', key!.keyId], {
      stdout: () => {},
      stderr: (text) => (stderr += text),
      env: { DATA_DIR: a.dataDir, ...redisEnv(a.services.redisUrl), QUEUE_PREFIX: a.services.config.QUEUE_PREFIX, ENV_FILE: '' },
    });
    expect([code, stderr]).toEqual([0, '']);
    expect(await readAtB(c, 'V1RTUALV1N0000007')).toBe(401);
  });

  it('new data stored by another process is what B delivers next', async () => {
    const vin = 'V1RTUALV1N0000004';
    const { c } = await consumerWithData(vin);
    // As a pipeline worker stores a harmonized point (its own services, same store and Redis).
    await a.services.store.dataPoints.insertMany([
      { vin, item: 'batteryvoltage', timestampMs: T0.getTime() + 1000, payload: payloadFor('batteryvoltage', new Date(T0.getTime() + 1000), 77), manufacturer: 'virtual', mappingVersion: 't', receivedAt: T0.toISOString() },
    ]);
    expect(await readAtB(c, vin)).toBe(12.77);
  });

  it('a write that could not publish shows at B once READ_CACHE_MAX_AGE_MS has passed', async () => {
    const vin = 'V1RTUALV1N0000005';
    const { c } = await consumerWithData(vin);
    // A plain store handle publishes nothing (e.g. the CLI run where no Redis is reachable).
    await raw.vehicles.transition(c.subscriptionId, vin, ['ACTIVATED'], 'DEACTIVATED', clock.now().toISOString());
    expect(await readAtB(c, vin)).toBe(12.1); // the bounded staleness the setting allows
    clock.advance(a.services.config.READ_CACHE_MAX_AGE_MS);
    expect(await readAtB(c, vin)).toBe('CAR.VE.903');
  });

  it('after a VIN-wide erasure at A, neither process holds the VIN in memory', async () => {
    const vin = 'V1RTUALV1N0000007';
    await consumerWithData(vin);
    // Both pseudonymised it: A stored its points, B counted it against the rate limits.
    expect(a.services.secrets.remembers(vin)).toBe(true);
    expect(b.secrets.remembers(vin)).toBe(true);
    const res = await http(aOrigin, 'DELETE', `/admin/v1/vehicles/${vin}/data`, { authorization: 'Bearer test-admin-token' });
    expect(res.status).toBe(200);
    expect(a.services.secrets.remembers(vin)).toBe(false);
    // B has the message on its socket by now (A waited for its echo); let its loop take it.
    await eventually(() => !b.secrets.remembers(vin), 'B forgot the VIN', 10_000, 5);
  });

  it('while B has lost the invalidation channel it reads the store, and caches again once back', async () => {
    const vin = 'V1RTUALV1N0000006';
    const { c } = await consumerWithData(vin);
    // Drop B's subscriber connection: until it is subscribed again, B must not trust its cache.
    await killSubscribers(a.services);
    await raw.vehicles.transition(c.subscriptionId, vin, ['ACTIVATED'], 'DEACTIVATED', clock.now().toISOString());
    expect(await readAtB(c, vin)).toBe('CAR.VE.903');
    // Once subscribed again B caches again: a write that does not publish goes unseen for a while.
    await eventually(() => a.services.cacheBus.live && b.cacheBus.live, 'both subscribed again', 5000, 10);
    clock.advance(a.services.config.READ_CACHE_MAX_AGE_MS);
    await raw.vehicles.transition(c.subscriptionId, vin, ['DEACTIVATED'], 'ACTIVATED', clock.now().toISOString());
    expect(await readAtB(c, vin)).toBe(12.1);
    await raw.vehicles.transition(c.subscriptionId, vin, ['ACTIVATED'], 'DEACTIVATED', clock.now().toISOString());
    expect(await readAtB(c, vin)).toBe(12.1);
  });
});
