import type { Cluster, Redis } from 'ioredis';
import type { Counter, Histogram } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { startPeriodic } from '../periodic.ts';
import type { Running } from '../running.ts';
import type { ScrapeGauges } from './gauges.ts';
import { metrics } from './metrics.ts';

/**
 * The pipeline view's history, kept in Redis so that every API process draws the same picture.
 *
 * One hash per bucket of each resolution (RESOLUTIONS: a minute for the last hour, up to an
 * hour for the last 7 days), each kept a little longer than its range. Counters are per process
 * (each API, pipeline, push or broker process counts what it did), so EACH process adds its own
 * increases since its last flush to the current bucket of every resolution (HINCRBY): no leader,
 * nothing counted twice, nothing lost when a process stops between flushes but its final flush
 * on close. Gauges (quarantine size, queue depths, the fleet's freshness) are one shared truth
 * read from the store and Redis: processes with the api role set them (HSET, the last reading
 * of the bucket wins), several doing it only repeat the same value. The buckets' keys are the
 * keyspace registry's (src/queues/keys.ts, CONSOLE_SAMPLES), handed in by the caller.
 */
export const MINUTE_MS = 60_000;
export const KEPT_MINUTES = 60;

/** A range the pipeline charts show, the bucket it is drawn in, and how long its buckets stay. */
export interface Resolution {
  range: '1h' | '6h' | '24h' | '7d';
  stepMs: number;
  /** Buckets in the range. */
  points: number;
  ttlS: number;
}
export const RESOLUTIONS: readonly Resolution[] = [
  { range: '1h', stepMs: MINUTE_MS, points: KEPT_MINUTES, ttlS: 2 * 3600 },
  { range: '6h', stepMs: 5 * MINUTE_MS, points: 72, ttlS: 7 * 3600 },
  { range: '24h', stepMs: 15 * MINUTE_MS, points: 96, ttlS: 25 * 3600 },
  { range: '7d', stepMs: 60 * MINUTE_MS, points: 168, ttlS: 8 * 86_400 },
];
export const bucketOf = (ms: number, r: Resolution) => Math.floor(ms / r.stepMs) * r.stepMs;
/** The Redis key of one bucket's hash of a range. */
export type SampleKey = (range: Resolution['range'], bucketMs: number) => string;

/** The counters the pipeline view charts, and how a series is named from a counter's labels. */
const COUNTERS: [string, Counter<string>, (labels: Record<string, unknown>) => string][] = [
  ['in', metrics.ingestMessages, (l) => `${l.manufacturer}|${l.transport}`],
  ['stored', metrics.dataPointsStored, (l) => `${l.manufacturer}`],
  ['failed', metrics.mappingFailures, (l) => `${l.manufacturer}`],
  ['push', metrics.pushOutcomes, (l) => `${l.outcome}`],
];
/** Latency from reception to stored: the histogram's buckets, its count and its sum (in ms: Redis adds integers). */
const LATENCY: [Histogram<string>, string] = [metrics.ingestToStored, 'cvd_ingest_to_stored_seconds'];
/** Jobs not yet done: what a queue depth means on the chart. */
const PENDING_STATES = new Set(['waiting', 'delayed', 'prioritized', 'active']);

/** Every charted counter's current value in this process, by field name (`in|virtual|mqtt`, summed over other labels). */
async function counterValues(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [kind, counter, name] of COUNTERS) {
    for (const v of (await counter.get()).values) {
      const field = `${kind}|${name(v.labels)}`;
      out.set(field, (out.get(field) ?? 0) + v.value);
    }
  }
  const [histogram, name] = LATENCY;
  for (const v of (await histogram.get()).values) {
    const field = v.metricName === `${name}_sum` ? 'lat|sum' : v.metricName === `${name}_count` ? 'lat|count' : `lat|le|${v.labels.le}`;
    out.set(field, (out.get(field) ?? 0) + (field === 'lat|sum' ? v.value * 1000 : v.value));
  }
  return out;
}

async function gaugeValues(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const v of (await metrics.quarantineSize.get()).values) out.set('quarantine|all', v.value);
  for (const v of (await metrics.queueDepth.get()).values) {
    if (!PENDING_STATES.has(String(v.labels.state))) continue;
    const field = `queue|${v.labels.queue}`;
    out.set(field, (out.get(field) ?? 0) + v.value);
  }
  return out;
}

/** What the sampler needs of the process: Redis (one server or a cluster), the clock, the log, its setting and its keys. */
export interface SamplerDeps {
  redis: Pick<Redis | Cluster, 'multi'>;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'CONSOLE_SAMPLE_SECONDS'>;
  sampleKey: SampleKey;
}

export interface SamplerOptions {
  /**
   * Processes with the api role pass the scrape-time gauges (services.gauges, built by
   * src/main/queue-metrics.ts) to also write the shared gauges; injected so this file need not
   * depend on the queues' wiring. Their owner closes them, not the sampler.
   */
  gauges?: Pick<ScrapeGauges, 'refresh'>;
  /**
   * With the gauges: how many vehicles were last seen within each age (label → count), read
   * from the store at most once a minute (a grouped read over every vehicle's latest values).
   */
  freshness?: () => Promise<Record<string, number>>;
  /** Default: CONSOLE_SAMPLE_SECONDS. */
  intervalMs?: number;
}

export function startSampler(services: SamplerDeps, opts: SamplerOptions): Running & { flush(): Promise<void> } {
  const { redis, clock } = services;
  const scrape = opts.gauges;
  let last: Map<string, number> | undefined;
  let fresh: { minute: number; values: Record<string, number> } | undefined;

  async function flush(): Promise<void> {
    const now = await counterValues();
    // The first reading is the baseline: what the process counted before the sampler started
    // is not this minute's.
    if (!last) last = now;
    const at = clock.now().getTime();
    const deltas: [string, number][] = [];
    for (const [field, value] of now) {
      const before = last.get(field) ?? 0;
      // A counter below its last reading was reset: all of it is new.
      const delta = Math.round(value >= before ? value - before : value);
      if (delta > 0) deltas.push([field, delta]);
    }
    let gauges: Map<string, number> | undefined;
    if (scrape) {
      await scrape.refresh();
      gauges = await gaugeValues();
      const minute = bucketOf(at, RESOLUTIONS[0]!);
      // A failed read (the store down) leaves the chart a gap, not the other gauges.
      if (opts.freshness && fresh?.minute !== minute) fresh = { minute, values: await opts.freshness().catch(() => ({})) };
      for (const [label, n] of Object.entries(fresh?.values ?? {})) gauges.set(`fresh|${label}`, n);
    }
    const tx = redis.multi();
    for (const r of RESOLUTIONS) {
      const key = services.sampleKey(r.range, bucketOf(at, r));
      for (const [field, delta] of deltas) tx.hincrby(key, field, delta);
      for (const [field, value] of gauges ?? []) tx.hset(key, `g:${field}`, value);
      tx.expire(key, r.ttlS);
    }
    await tx.exec();
    // Only once written: a failed flush carries its increases over to the next one.
    last = now;
  }

  const periodic = startPeriodic({
    name: 'console-sampler',
    intervalMs: opts.intervalMs ?? services.config.CONSOLE_SAMPLE_SECONDS * 1000,
    logger: services.logger,
    failure: 'console sample not written (Redis unavailable?)',
    run: flush,
  });
  return {
    name: 'console-sampler',
    /** Writes now (the timer does it every interval). */
    flush: () => periodic.runOnce(),
    async close() {
      await periodic.close();
      await flush().catch(() => undefined);
    },
  };
}
