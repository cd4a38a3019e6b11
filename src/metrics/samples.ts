import type { Redis } from 'ioredis';
import type { Counter } from 'prom-client';
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
 * One hash per minute (`<QUEUE_PREFIX>:console:samples:<minute start, epoch ms>`), expiring two
 * hours after it starts (the view shows one hour). Counters are per process (each API, pipeline
 * or broker process counts what it did), so EACH process adds its own increases since its last
 * flush to the current minute (HINCRBY): no leader, nothing counted twice, nothing lost when a
 * process stops between flushes but its final flush on close. Gauges (quarantine size, queue
 * depths) are one shared truth read from the store and Redis: processes with the api role set
 * them (HSET, the last reading of the minute wins), several doing it only repeat the same value.
 */
export const MINUTE_MS = 60_000;
export const KEPT_MINUTES = 60;
const TTL_S = 2 * 60 * 60;

export const sampleKey = (services: { config: Pick<Config, 'QUEUE_PREFIX'> }, minuteMs: number) => `${services.config.QUEUE_PREFIX}:console:samples:${minuteMs}`;

/** The counters the pipeline view charts, and how a series is named from a counter's labels. */
const COUNTERS: [string, Counter<string>, (labels: Record<string, unknown>) => string][] = [
  ['in', metrics.ingestMessages, (l) => `${l.manufacturer}|${l.transport}`],
  ['stored', metrics.dataPointsStored, (l) => `${l.manufacturer}`],
  ['failed', metrics.mappingFailures, (l) => `${l.manufacturer}`],
];
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

/** What the sampler needs of the process: Redis, the clock, the log and its two settings. */
export interface SamplerDeps {
  redis: Pick<Redis, 'multi'>;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'QUEUE_PREFIX' | 'CONSOLE_SAMPLE_SECONDS'>;
}

export interface SamplerOptions {
  /**
   * Processes with the api role pass the scrape-time gauges (services.gauges, built by
   * src/main/queue-metrics.ts) to also write the shared gauges; injected so this file need not
   * depend on the queues' wiring. Their owner closes them, not the sampler.
   */
  gauges?: Pick<ScrapeGauges, 'refresh'>;
  /** Default: CONSOLE_SAMPLE_SECONDS. */
  intervalMs?: number;
}

export function startSampler(services: SamplerDeps, opts: SamplerOptions): Running & { flush(): Promise<void> } {
  const { redis, clock } = services;
  const scrape = opts.gauges;
  let last: Map<string, number> | undefined;

  async function flush(): Promise<void> {
    const now = await counterValues();
    // The first reading is the baseline: what the process counted before the sampler started
    // is not this minute's.
    if (!last) last = now;
    const minute = Math.floor(clock.now().getTime() / MINUTE_MS) * MINUTE_MS;
    const key = sampleKey(services, minute);
    const tx = redis.multi();
    for (const [field, value] of now) {
      const before = last.get(field) ?? 0;
      // A counter below its last reading was reset: all of it is new.
      const delta = value >= before ? value - before : value;
      if (delta > 0) tx.hincrby(key, field, Math.round(delta));
    }
    if (scrape) {
      await scrape.refresh();
      for (const [field, value] of await gaugeValues()) tx.hset(key, `g:${field}`, value);
    }
    tx.expire(key, TTL_S);
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
