import calculateSlot from 'cluster-key-slot';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPipelineSeries } from '../../src/console/series.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { apiErrors } from '../../src/errors.ts';
import { eraseVehicleData } from '../../src/gdpr/erase.ts';
import { createApiRateLimiter } from '../../src/transports/poll/rate-limiter.ts';
import { createShareMembers } from '../../src/transports/mqtt/share-members.ts';
import { startMappingReloads } from '../../src/main/mapping-reloads.ts';
import { startServiceSampler } from '../../src/main/sampler.ts';
import { requestReload } from '../../src/mapping-cases/reload-bus.ts';
import { createActivationQueue } from '../../src/management/queue.ts';
import { createPollSchedule } from '../../src/management/poll-schedule.ts';
import { startActivationWorkers } from '../../src/management/start.ts';
import { firstReception } from '../../src/pipeline/first-reception.ts';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import { startPeriodic } from '../../src/periodic.ts';
import { createPushQueue } from '../../src/push/queue.ts';
import { createInstallationSchedule } from '../../src/queues/installation-schedule.ts';
import { familyOf, keyFamilies } from '../../src/queues/keys.ts';
import { queueHome } from '../../src/queues/open-queue.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import type { Running } from '../../src/running.ts';
import { logRequest } from '../../src/virtual/kestrel/request-log.ts';
import { signIn } from '../console/session.ts';
import { recordRedisCommands, type SentCommand } from '../helpers/redis-commands.ts';
import { clusterRun } from '../helpers/redis-env.ts';
import { electricTelemetryOf, ROOT, waitFor } from '../pipeline/harness.ts';
import { startPushHarness, type PushHarness } from '../push/harness.ts';
import { crashPoint, S08 } from '../push/helpers.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/*
 * The keyspace registry (src/queues/keys.ts) and Redis Cluster slots, checked on what the
 * service really sends: every ioredis connection of this process (BullMQ's too) is recorded
 * while the service ingests, harmonizes, fans out and delivers to a webhook, serves a delivery
 * under its rate limits, counts failed authentications, activates a vehicle, schedules a poll,
 * samples and draws the console's charts, signs in to and out of the console, runs an
 * installation-wide housekeeping job, keeps an MQTT share group's members, reloads the mappings
 * of every process, throttles a second webhook endpoint's updates, retries failed batches,
 * replays a delivery and erases a VIN. A key built outside the registry, or a script, transaction or pipeline whose keys
 * would sit in two slots of a cluster (CROSSSLOT there), fails these tests.
 */
describe('the Redis keyspace, as the service uses it', () => {
  let h: PushHarness;
  let recorder: ReturnType<typeof recordRedisCommands>;
  const running: Running[] = [];

  beforeAll(async () => {
    recorder = recordRedisCommands();
    h = await startPushHarness({ env: { LOG_LEVEL: 'warn', ADMIN_TOKEN: 'keyspace-admin-token' } });
    const { services } = h.t;
    running.push(startHarmonizeWorker(pipelineContext(services)), ...(await startActivationWorkers(services)));

    // Ingest → harmonize → store; an event → fan-out → webhook.
    const ingest = createIngest(services);
    await ingest.enqueueNow([rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: services.clock.now().toISOString(), topic: `virtual/v1/${S08}/telemetry` }, electricTelemetryOf(S08))]);
    await ingest.close();
    await waitFor(async () => (await services.store.dataPoints.count()) > 0, 15_000, 'the batch stored');
    await h.fanout.enqueue([crashPoint(S08)]);
    await h.receiver.waitFor(1, 15_000);
    // A second webhook endpoint of the subscription, watching a pull item: its own update throttle.
    const second = await h.t.app.inject({ method: 'PUT', url: '/push/v1/webhooks/second', headers: h.consumer.headers, payload: { url: h.receiver.url, items: ['crashseverity'] } });
    expect(second.statusCode, second.body).toBe(200);
    const at = new Date().toISOString();
    const severity: DataPoint = { vin: S08, item: 'crashseverity', timestampMs: Date.parse(at), payload: { value: 1, timestamp: at }, manufacturer: 'virtual', mappingVersion: 'test', receivedAt: at };
    await h.fanout.enqueue([severity]);
    await h.receiver.waitFor(2, 15_000);

    // A delivery read under the subscription and vehicle limits; failed authentications of an address and a key.
    const read = await h.t.app.inject({
      method: 'POST',
      url: '/delivery/v1/in-vehicle',
      headers: { ...h.consumer.headers, 'content-type': 'application/json' },
      payload: { version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: S08 } }], dataItems: ['accidentautomatic'] },
    });
    expect(read.statusCode).toBe(200);
    await services.authFailures.failed('203.0.113.7', apiErrors.invalidApiKey(), ['a-presented-api-key']);

    // An activation carried out by its worker; a polled vehicle scheduled; the poll API's rate.
    const activations = createActivationQueue(services);
    await activations.enqueue([{ job: { action: 'activate', subscriptionId: h.consumer.subscriptionId, vin: 'V1RTUALV1N0000K01' }, delayMs: 0 }]);
    await activations.close();
    const polls = createPollSchedule(services);
    await polls.ensure('kestrel', 'KESTRELV1N0000001');
    await polls.close();
    const limiter = createApiRateLimiter({ redis: services.redis, clock: services.clock, prefix: services.config.QUEUE_PREFIX, manufacturer: 'kestrel', maxRequestsPerS: 5 });
    await limiter.acquire(1000);
    await limiter.pause(100);
    await logRequest(services.redis, services.config.QUEUE_PREFIX, 'kestrel', { at: new Date().toISOString(), phase: 'received', requestId: null, vin: S08, cursor: null });
    await firstReception(services, rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date().toISOString() }, '{}'));

    // The console's samples and charts (every range), a session signed in and out; failed batches retried; a delivery replayed.
    const sampler = startServiceSampler(services, { gauges: services.gauges });
    await sampler.flush();
    await sampler.close();
    for (const range of ['1h', '6h', '24h', '7d'] as const) await readPipelineSeries(services, range);
    const session = await signIn(h.t.app, 'keyspace-admin-token');
    const signedOut = await h.t.app.inject({ method: 'POST', url: '/console/sign-out', headers: { cookie: session.cookie, 'x-csrf-token': session.csrf }, payload: { csrf: session.csrf } });
    expect(signedOut.statusCode).toBe(303);

    // Housekeeping run once for the installation; an MQTT share group's members; a mapping reload of every process.
    const housekeeping = createInstallationSchedule(queueHome(services), 'pipeline', services.logger, { completedS: 60, failedS: 60 });
    let housekept!: () => void;
    const ran = new Promise<void>((resolve) => (housekept = resolve));
    const job = startPeriodic({ name: 'keyspace-housekeeping', intervalMs: 60_000, logger: services.logger, failure: 'failed', run: async () => housekept(), scheduler: housekeeping });
    await ran;
    await job.close();
    await housekeeping.close();
    const members = createShareMembers(services.redis, services.config.QUEUE_PREFIX, 'keyspace-group', 'client-1');
    await members.joined(Date.now() + 60_000);
    await members.mayLeave(Date.now());
    const reloads = startMappingReloads(services);
    await reloads.listening;
    const reloaded = await requestReload(services.redis, services.config.QUEUE_PREFIX, { waitMs: 15_000 });
    expect(reloaded.outcomes).toHaveLength(reloaded.processes);
    await reloads.close();
    const retry = await h.t.app.inject({ method: 'POST', url: '/admin/v1/pipeline/failed-batches/retry', headers: { authorization: 'Bearer keyspace-admin-token' } });
    expect(retry.statusCode).toBe(202);
    const [delivered] = await services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, endpointId: 'default', status: 'DELIVERED', limit: 1 });
    const replay = await h.t.app.inject({ method: 'POST', url: `/push/v1/deliveries/${delivered!.transactionId}/replay`, headers: h.consumer.headers });
    expect(replay.statusCode).toBe(202);
    await h.receiver.waitFor(3, 15_000);
    const push = createPushQueue(services);
    await push.isScheduled(delivered!.transactionId);
    await push.close();

    // And the VIN erased, queues and keys alike.
    await eraseVehicleData(services, S08, { activeWaitMs: 2000 });
  }, 90_000);
  afterAll(async () => {
    recorder.stop();
    for (const r of running.reverse()) await r.close();
    await h.stop();
  });

  const prefix = () => h.t.services.config.QUEUE_PREFIX;
  const describeCommand = (c: SentCommand) => `${c.name} ${c.keys.join(' ')}`;

  it('recorded the workload (the checks below could fail)', () => {
    expect(recorder.commands.length).toBeGreaterThan(200);
    expect(recorder.commands.some((c) => c.keys.length > 1)).toBe(true);
    expect(recorder.commands.some((c) => c.batch !== undefined && c.keys.length > 0)).toBe(true);
    const families = new Set(recorder.commands.flatMap((c) => c.keys.map((k) => familyOf(prefix(), k)?.name)));
    for (const name of [
      'queue.harmonize',
      'queue.push-deliveries',
      'queue.vehicle-activations',
      'queue.vehicle-polls',
      'queue.pipeline-housekeeping',
      'rate-limit.subscription',
      'rate-limit.vehicle',
      'rate-limit.auth-failure',
      'push.update-throttle',
      'console.samples',
      'console.signed-out',
      'poll.api-rate',
      'ingest.mqtt-share-members',
      'mappings.reload-outcomes',
      // A channel is a key only to a cluster (SPUBLISH, SSUBSCRIBE); PUBLISH names none.
      ...(clusterRun() ? ['channel.mapping-reload'] : []),
    ]) {
      expect(families, name).toContain(name);
    }
  });

  it('builds every key through the registry: each belongs to a declared family', () => {
    const outside = recorder.commands.flatMap((c) => c.keys.filter((k) => familyOf(prefix(), k) === undefined).map((k) => `${c.name} ${k}`));
    expect([...new Set(outside)]).toEqual([]);
  });

  it('sends the keys of every multi-key command to one slot (cluster-key-slot)', () => {
    const crossing = recorder.commands.filter((c) => new Set(c.keys.map((k) => calculateSlot(k))).size > 1).map(describeCommand);
    expect([...new Set(crossing)]).toEqual([]);
  });

  it('sends the keys of every pipeline and transaction to one slot', () => {
    const batches = new Map<object, SentCommand[]>();
    for (const c of recorder.commands) if (c.batch) batches.set(c.batch, [...(batches.get(c.batch) ?? []), c]);
    const crossing = [...batches.values()]
      .filter((cs) => new Set(cs.flatMap((c) => c.keys.map((k) => calculateSlot(k)))).size > 1)
      .map((cs) => cs.map(describeCommand).join(' | '));
    expect(crossing).toEqual([]);
  });

  it('declares every family once, with a unique name and an erasure policy', () => {
    // With the wing's, which the test app registered when it loaded the wing.
    const names = keyFamilies().map((f) => f.name);
    expect(names).toContain('virtual.oem-code');
    expect(new Set(names).size).toBe(names.length);
    for (const f of keyFamilies()) {
      expect(f.tag.length, f.name).toBeGreaterThan(0);
      if (f.erasure.by === 'none') expect(f.erasure.reason.length, f.name).toBeGreaterThan(0);
    }
  });
});

/** Source files under a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a file without its comments (good enough for this check: no `//` inside the strings it looks at). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

describe('where keys are built', () => {
  it('no source file but the registry builds a Redis key from QUEUE_PREFIX', () => {
    // A template string that puts the prefix in front of something, or one that spells a key
    // family's name: what a key built by hand looks like.
    const builtByHand = /`[^`]*\$\{\s*(?:[\w.]+\.)?\w*(QUEUE_PREFIX|[pP]refix)\s*\}[:{][^`]*`|['"`][^'"`]*:(rl|push:throttle|withdraw|oem|console|poll|first-reception|cache-invalidation|mqtt-share-members|mappings):/;
    const offenders = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'simulator', 'src'))]
      .map((f) => relative(ROOT, f))
      // The registry, and the virtual wing's families, which the wing registers there when it is loaded.
      .filter((f) => f !== 'src/queues/keys.ts' && f !== 'src/virtual/keys.ts')
      .filter((f) => builtByHand.test(code(readFileSync(join(ROOT, f), 'utf8'))));
    expect(offenders).toEqual([]);
  });
});
