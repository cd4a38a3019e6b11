import type { ConsoleContext } from './context.ts';
import { KEPT_MINUTES, MINUTE_MS, sampleKey } from '../metrics/samples.ts';

export interface Chart {
  id: string;
  title: string;
  /** One name per series (`virtual mqtt`, ...). */
  series: string[];
  /** values[i][m]: series i at minute m; null where nothing was recorded (a gauge not sampled). */
  values: (number | null)[][];
}

export interface PipelineSeries {
  /** Start of each minute, epoch seconds, oldest first; the last is the current minute. */
  minutes: number[];
  charts: Chart[];
}

const CHARTS: [prefix: string, id: string, title: string, gauge: boolean][] = [
  ['in|', 'messages-in', 'Messages in, per manufacturer and transport (per minute)', false],
  ['stored|', 'items-stored', 'Items stored, per manufacturer (per minute)', false],
  ['failed|', 'mapping-failures', 'Mapping failures (quarantined), per manufacturer (per minute)', false],
  ['g:quarantine|', 'quarantine', 'Quarantine size', true],
  ['g:queue|', 'queues', 'Queue depths (jobs not done yet)', true],
];

/**
 * The last hour of samples (src/metrics/samples.ts), one Redis round trip for the 60 hashes.
 * A minute without a counter's field counted nothing (0); without a gauge's field it was not
 * sampled (null: a gap on the chart, not a false zero).
 */
export async function readPipelineSeries(services: Pick<ConsoleContext, 'clock' | 'redis' | 'config'>): Promise<PipelineSeries> {
  const current = Math.floor(services.clock.now().getTime() / MINUTE_MS) * MINUTE_MS;
  const minutes = Array.from({ length: KEPT_MINUTES }, (_, i) => current - (KEPT_MINUTES - 1 - i) * MINUTE_MS);
  const pipe = services.redis.pipeline();
  for (const m of minutes) pipe.hgetall(sampleKey(services, m));
  const hashes = ((await pipe.exec()) ?? []).map(([err, h]) => (err ? {} : (h as Record<string, string>)));
  const charts = CHARTS.map(([prefix, id, title, gauge]): Chart => {
    const names = [...new Set(hashes.flatMap((h) => Object.keys(h).filter((f) => f.startsWith(prefix))))].sort();
    return {
      id,
      title,
      series: names.map((f) => f.slice(prefix.length).replace('|', ' ')),
      values: names.map((f) => hashes.map((h) => (h[f] === undefined ? (gauge ? null : 0) : Number(h[f])))),
    };
  });
  return { minutes: minutes.map((m) => m / 1000), charts };
}
