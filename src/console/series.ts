import { bucketOf, RESOLUTIONS, type Resolution } from '../metrics/samples.ts';
import { CONSOLE_SAMPLES } from '../queues/keys.ts';
import type { ConsoleContext } from './context.ts';
import type { Range } from './vehicle-data.ts';

export interface Chart {
  id: string;
  title: string;
  /** One name per series (`virtual mqtt`, ...). */
  series: string[];
  /** values[i][b]: series i in bucket b; null where nothing was recorded (a gauge not sampled, a rate of nothing). */
  values: (number | null)[][];
  /** The unit of the values, when they have one (s, %). */
  unit?: string;
  /** A fixed value axis (percentages). */
  yRange?: [number, number];
}

export interface PipelineSeries {
  range: Range;
  /** Seconds per bucket. */
  stepS: number;
  /** Start of each bucket, epoch seconds, oldest first; the last is the current one, still filling. */
  minutes: number[];
  charts: Chart[];
}

type Hash = Record<string, string>;
const per = (r: Resolution) => ({ 60_000: 'minute', 300_000: '5 minutes', 900_000: '15 minutes', 3_600_000: 'hour' })[r.stepMs] ?? `${r.stepMs / 1000} s`;

/** Charts of counters or gauges: one series per field with the prefix (a counter's missing field counted 0; a gauge's was not sampled). */
const FIELD_CHARTS: [prefix: string, id: string, title: (r: Resolution) => string, gauge: boolean][] = [
  ['in|', 'messages-in', (r) => `Messages in, per manufacturer and transport (per ${per(r)})`, false],
  ['stored|', 'items-stored', (r) => `Items stored, per manufacturer (per ${per(r)})`, false],
  ['failed|', 'mapping-failures', (r) => `Mapping failures (quarantined), per manufacturer (per ${per(r)})`, false],
  ['g:fresh|', 'freshness', () => 'Vehicles by when they last sent data', true],
  ['g:quarantine|', 'quarantine', () => 'Quarantine size', true],
  ['g:queue|', 'queues', () => 'Queue depths (jobs not done yet)', true],
];

function fieldChart(hashes: Hash[], [prefix, id, title, gauge]: (typeof FIELD_CHARTS)[number], r: Resolution): Chart {
  const names = [...new Set(hashes.flatMap((h) => Object.keys(h).filter((f) => f.startsWith(prefix))))].sort();
  return {
    id,
    title: title(r),
    series: names.map((f) => f.slice(prefix.length).replace('|', ' ')),
    values: names.map((f) => hashes.map((h) => (h[f] === undefined ? (gauge ? null : 0) : Number(h[f])))),
  };
}

const n = (h: Hash, f: string) => Number(h[f] ?? 0);

/** The q-quantile (0..1) of one bucket's latency histogram, interpolated inside its bucket; null without a message. */
function quantile(h: Hash, q: number): number | null {
  const bounds = Object.keys(h)
    .filter((f) => f.startsWith('lat|le|'))
    .map((f) => f.slice('lat|le|'.length))
    .sort((a, b) => (a === '+Inf' ? 1 : b === '+Inf' ? -1 : Number(a) - Number(b)));
  const total = n(h, 'lat|count');
  if (total === 0 || bounds.length === 0) return null;
  let below = 0;
  let lower = 0;
  for (const b of bounds) {
    const upTo = n(h, `lat|le|${b}`);
    if (upTo >= q * total) {
      if (b === '+Inf') return lower;
      const upper = Number(b);
      return upTo === below ? upper : lower + ((q * total - below) / (upTo - below)) * (upper - lower);
    }
    below = upTo;
    lower = b === '+Inf' ? lower : Number(b);
  }
  return lower;
}

/** End-to-end latency per bucket: the mean and the 95th percentile, seconds. */
function latencyChart(hashes: Hash[]): Chart {
  return {
    id: 'latency',
    title: 'End-to-end latency, reception to stored (seconds)',
    series: ['mean', 'p95'],
    unit: 's',
    values: [hashes.map((h) => (n(h, 'lat|count') ? n(h, 'lat|sum') / 1000 / n(h, 'lat|count') : null)), hashes.map((h) => quantile(h, 0.95))],
  };
}

/** Webhook attempts that were delivered, of those that ended (delivered, or to be retried, or dead), per bucket. */
function pushChart(hashes: Hash[]): Chart {
  return {
    id: 'push-success',
    title: 'Push success rate (% of webhook attempts delivered)',
    series: ['delivered'],
    unit: '%',
    yRange: [0, 100],
    values: [
      hashes.map((h) => {
        const tried = n(h, 'push|delivered') + n(h, 'push|retrying') + n(h, 'push|dead');
        return tried ? (100 * n(h, 'push|delivered')) / tried : null;
      }),
    ],
  };
}

/**
 * The chosen range of samples (src/metrics/samples.ts) in its resolution: one Redis round trip
 * for its buckets (60 minutes for the last hour, up to 168 hours for 7 days).
 */
export async function readPipelineSeries(services: Pick<ConsoleContext, 'clock' | 'redis' | 'config'>, range: Range = '1h'): Promise<PipelineSeries> {
  const r = RESOLUTIONS.find((x) => x.range === range) ?? RESOLUTIONS[0]!;
  const current = bucketOf(services.clock.now().getTime(), r);
  const buckets = Array.from({ length: r.points }, (_, i) => current - (r.points - 1 - i) * r.stepMs);
  const pipe = services.redis.pipeline();
  for (const b of buckets) pipe.hgetall(CONSOLE_SAMPLES.key(services.config.QUEUE_PREFIX, r.range, b));
  const hashes = ((await pipe.exec()) ?? []).map(([err, h]) => (err ? {} : (h as Hash)));
  const [messages, stored, failed, ...gauges] = FIELD_CHARTS.map((c) => fieldChart(hashes, c, r));
  return {
    range: r.range,
    stepS: r.stepMs / 1000,
    minutes: buckets.map((b) => b / 1000),
    charts: [messages!, stored!, failed!, latencyChart(hashes), pushChart(hashes), ...gauges],
  };
}
