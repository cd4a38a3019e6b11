import calculateSlot from 'cluster-key-slot';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savePending, saveSession } from '../../src/consent/withdrawal-session.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { eraseVehicleData } from '../../src/gdpr/erase.ts';
import { createActivationQueue } from '../../src/management/queue.ts';
import { createPollSchedule } from '../../src/management/poll-schedule.ts';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import { createPushQueue } from '../../src/push/queue.ts';
import { isCluster } from '../../src/queues/redis.ts';
import { logRequest } from '../../src/virtual/kestrel/request-log.ts';
import { issueCode } from '../../src/virtual/oem/codes.ts';
import { scanRedis, type Hit } from './scan.ts';
import { seedActivation, seedConsent } from './seed.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { clusterRun } from '../helpers/redis-env.ts';
import { crashPoint } from '../push/helpers.ts';

const X = 'BRLAU1EV0N1000001';
const Y = 'BRLAU1EV0N1000002';

/*
 * A GDPR erasure on every master of a Redis Cluster (and on a single Redis alike, in the main
 * suite): on a cluster the VIN's keys, counters and queued jobs sit on several masters (per-subscription rate-limit counters and push throttles each in their own slot, four
 * harmonize and four push partitions, the simulated manufacturers' codes and logs, the consent
 * portal's withdrawal state). After the erasure no master holds the VIN or its pseudonym, in a
 * key's name or its value (sealed values opened with the service key), and the other VIN's
 * data is where it was.
 */
describe('erasure on every master', () => {
  let t: TestApp;
  const consumers: TestConsumer[] = [];

  /** The master (`host:port`) that serves a hit's key, from the client's slot map. */
  const masterOf = (hit: Hit) => {
    const redis = t.services.redis;
    if (!isCluster(redis)) return 'the one server';
    const key = hit.where.replace(/^redis (key name )?/, '');
    return redis.slots[calculateSlot(key)]?.[0];
  };
  const scan = (needles: string[]) => scanRedis(t.services.redis, t.services.config.QUEUE_PREFIX, needles, t.services.secrets);

  beforeAll(async () => {
    t = await createTestApp({ env: { HARMONIZE_PARTITIONS: '4', PUSH_PARTITIONS: '4', PUSH_WATCH_CACHE_MS: '0' } });
    const { services } = t;
    const at = services.clock.now().toISOString();
    for (let i = 0; i < 6; i++) {
      const c = await addConsumer(t);
      consumers.push(c);
      for (const vin of [X, Y]) {
        await seedActivation(services, c.subscriptionId, vin);
        await seedConsent(services, c.consumerId, c.subscriptionId, vin);
      }
      await services.store.webhooks.put({
        subscriptionId: c.subscriptionId,
        url: 'https://hooks.example.com/in',
        secrets: [{ sealed: services.secrets.encrypt(`whsec_${Buffer.from(randomUUID()).toString('base64')}`), createdAt: at, expiresAt: null }],
        authorizationSealed: null,
        items: ['mileage'],
        minIntervalSeconds: 60,
        notices: [],
        status: 'ENABLED',
        disabledReason: null,
        failingSince: null,
        createdAt: at,
        updatedAt: at,
      });
      // Per-subscription counters of both VINs.
      for (const vin of [X, Y]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/delivery/v1/in-vehicle',
          headers: { ...c.headers, 'content-type': 'application/json' },
          payload: { version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: vin } }], dataItems: ['mileage'] },
        });
        expect(res.statusCode).toBe(200);
      }
    }
    // Queued work of both VINs (no worker runs: it waits): raw batches, deliveries and update throttles, an activation, a poll.
    const ingest = createIngest(services);
    for (const vin of [X, Y]) {
      await ingest.enqueueNow([rawMessage({ manufacturer: 'borealis', messageType: 'vehicle-status', receivedAt: at }, JSON.stringify({ vehicle: { vinNumber: vin } }))]);
    }
    await ingest.close();
    const fanout = createPushFanoutEnqueuer(services);
    for (const vin of [X, Y]) {
      await fanout.enqueue([crashPoint(vin), { ...crashPoint(vin), item: 'mileage', payload: { value: 1, unit: 'km', timestamp: at } }]);
    }
    await fanout.close();
    const activations = createActivationQueue(services);
    await activations.enqueue([{ job: { action: 'activate', subscriptionId: consumers[0]!.subscriptionId, vin: X }, delayMs: 60_000 }]);
    await activations.close();
    const polls = createPollSchedule(services);
    await polls.ensure('kestrel', X);
    await polls.close();
    // Short-lived state that names the VIN: a simulated manufacturer's code and log, a withdrawal.
    const prefix = services.config.QUEUE_PREFIX;
    await issueCode(services.redis, services.secrets, prefix, 'borealis', { clientId: 'c', redirectUri: 'https://x/cb', codeChallenge: 'x', scope: ['mileage'], vin: X });
    await logRequest(services.redis, prefix, 'kestrel', { at, phase: 'received', requestId: null, vin: X, cursor: null });
    await logRequest(services.redis, prefix, 'kestrel', { at, phase: 'received', requestId: null, vin: Y, cursor: null });
    await saveSession(services, 'session-hash', { csrf: 'c', at, proof: { vin: X, manufacturer: 'borealis', at } });
    await savePending(services, 'state-hash', { sessionHash: 'session-hash', vin: X, manufacturer: 'borealis', codeVerifier: 'v', at });
  }, 60_000);
  afterAll(() => t.cleanup());

  it('leaves no key or value naming the VIN or its pseudonym on any master', async () => {
    const { services } = t;
    const needles = [X, services.secrets.pseudonym(X)];
    const before = await scan(needles);
    // The check below could fail: the VIN is on more than one master of a cluster, in every kind of place.
    expect(new Set(before.hits.map(masterOf)).size).toBeGreaterThanOrEqual(clusterRun() ? 2 : 1);
    for (const place of ['.harmonize.', '.vehicle-activations.', '.vehicle-polls.', ':rl:', ':push:throttle:', ':oem:borealis:code:', ':oem:kestrel:api-log', ':withdraw:session:', ':withdraw:state:']) {
      expect(before.hits.some((h) => h.where.includes(place)), place).toBe(true);
    }
    const yBefore = (await scan([Y, services.secrets.pseudonym(Y)])).hits.length;

    // Push jobs carry only a transactionId (the row has the VIN): looked up by it, in every partition.
    const push = createPushQueue(services);
    const scheduled = async (vin: string) => {
      const rows = (await Promise.all(consumers.map((c) => services.store.deliveries.list({ subscriptionId: c.subscriptionId, limit: 100 })))).flat().filter((d) => d.vin === vin);
      return (await Promise.all(rows.map((d) => push.isScheduled(d.transactionId)))).filter(Boolean).length;
    };
    const [xJobs, yJobs] = [await scheduled(X), await scheduled(Y)];
    expect(xJobs).toBeGreaterThanOrEqual(consumers.length);

    const receipt = await eraseVehicleData(services, X, { activeWaitMs: 1000 });
    expect(receipt.notErased).toEqual({ unreadableJobs: 0, activeJobs: 0 });
    expect(receipt.erased.queuedJobs).toBeGreaterThanOrEqual(xJobs + 3);
    expect((await scan(needles)).hits).toEqual([]);
    expect(await scheduled(Y)).toBe(yJobs);
    await push.close();
    // The other VIN keeps what it had (its counters, jobs, log line).
    expect((await scan([Y, services.secrets.pseudonym(Y)])).hits.length).toBe(yBefore);
  });
});
