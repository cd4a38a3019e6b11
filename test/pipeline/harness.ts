import { afterAll, beforeAll } from 'vitest';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedBroker } from '../../src/transports/mqtt/embedded-broker.ts';
import { mqttCredentials } from '../../src/adapters/secrets.ts';
import type { Clock } from '../../src/clock.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { startHarmonizeWorker, type HarmonizeWorkerOptions } from '../../src/pipeline/worker.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import { type PushFanoutEnqueuer } from '../../src/pipeline/fanout-contract.ts';
import type { Running } from '../../src/running.ts';
import { defaultPaths } from '../../src/paths.ts';
import type { Paths } from '../../src/paths.ts';
import type { Services } from '../../src/services.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/** Harmonize jobs under this test's prefix, per state. */
export async function harmonizeJobCounts(services: Services): Promise<Record<string, number>> {
  const queue = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
  try {
    return await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized');
  } finally {
    await queue.close();
  }
}

/** Every harmonize job ever added under this test's prefix, whatever its state. */
export async function harmonizeJobCount(services: Services): Promise<number> {
  return Object.values(await harmonizeJobCounts(services)).reduce((a, b) => a + b, 0);
}

export const ROOT = defaultPaths().root;

/** A fixture of an adapter, as raw text. */
export function fixture(manufacturer: string, name: string): string {
  return readFileSync(join(ROOT, 'adapters', manufacturer, 'fixtures', name), 'utf8');
}

/** The electric telemetry fixture (of V1RTUALV1N0000003) with every mention of its VIN replaced. */
export function electricTelemetryOf(vin: string): string {
  return fixture('virtual', 'virtual.telemetry.electric.json').replaceAll('V1RTUALV1N0000003', vin);
}

/** Polls until `check` returns a truthy value (then returns it) or the time is up. */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A private copy of adapters/ and mappings/ (the real catalog), for tests that break or fix a
 * mapping. `write(relPath, text)` changes a file of the copy.
 */
export function copyProject(): { paths: Paths; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cvd-adapters-'));
  cpSync(join(ROOT, 'adapters'), join(dir, 'adapters'), { recursive: true });
  cpSync(join(ROOT, 'mappings'), join(dir, 'mappings'), { recursive: true });
  const real = defaultPaths();
  return {
    paths: { ...real, adapters: join(dir, 'adapters'), mappings: join(dir, 'mappings') },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Harness extends TestServices {
  brokerUrl?: string;
  running: Running[];
  /** An MQTT client logged in as this adapter at the embedded broker, connected. */
  connect(adapterId?: string, opts?: IClientOptions): Promise<MqttClient>;
  stop(): Promise<void>;
}

/** Real services, the embedded broker on a free port and a harmonize worker. */
export async function startHarness(
  opts: { env?: Record<string, string>; clock?: Clock; paths?: Paths; broker?: boolean; worker?: HarmonizeWorkerOptions | false } = {},
): Promise<Harness> {
  const t = await createTestServices({
    env: { PIPELINE_BATCH_MAX_WAIT_MS: '5', MQTT_PORT: '0', ...opts.env },
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.paths ? { paths: opts.paths } : {}),
  });
  const running: Running[] = [];
  const clients: MqttClient[] = [];
  let brokerUrl: string | undefined;
  if (opts.broker !== false) {
    const broker = await startEmbeddedBroker(t.services, { port: 0 });
    running.push(broker);
    brokerUrl = broker.url;
  }
  if (opts.worker !== false) running.push(startHarmonizeWorker(pipelineContext(t.services), opts.worker || {}));
  return {
    ...t,
    brokerUrl,
    running,
    async connect(adapterId = 'virtual', clientOpts = {}) {
      const adapter = t.services.adapters.get(adapterId);
      if (!adapter || !brokerUrl) throw new Error('no broker or no such adapter');
      const client = mqtt.connect(brokerUrl, { ...mqttCredentials(t.services.config, adapter), reconnectPeriod: 0, ...clientOpts });
      clients.push(client);
      await new Promise<void>((resolve, reject) => {
        client.once('connect', () => resolve());
        client.once('error', reject);
      });
      return client;
    },
    async stop() {
      for (const c of clients) c.end(true);
      for (const r of [...running].reverse()) await r.close();
      await t.cleanup();
    },
  };
}

/**
 * Real services and a push fan-out for a suite that calls processBatch itself (no broker, no
 * worker): created before the suite's tests, closed after them. Read them in the tests, not
 * at collection time.
 */
export function batchServices(env: Record<string, string> = {}): { readonly t: TestServices; readonly fanout: PushFanoutEnqueuer } {
  const ctx = {} as { t: TestServices; fanout: PushFanoutEnqueuer };
  beforeAll(async () => {
    ctx.t = await createTestServices({ env });
    ctx.fanout = createPushFanoutEnqueuer(ctx.t.services);
  });
  afterAll(async () => {
    await ctx.fanout.close();
    await ctx.t.cleanup();
  });
  return ctx;
}
