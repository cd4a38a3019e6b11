import type { Clock } from '../clock.ts';
import type { Store } from '../store/contract.ts';

/** The ages the freshness chart tells apart, as labels of its series. */
const BANDS: [label: string, ms: number][] = [
  ['within 5 min', 5 * 60_000],
  ['5 min to 1 h', 3_600_000],
  ['1 h to 24 h', 86_400_000],
];

/**
 * How many vehicles were last seen how long ago, in exclusive bands (within 5 minutes, up to an
 * hour, up to a day, longer ago): the api role's gauge for the pipeline's freshness chart.
 */
export async function fleetFreshness(deps: { store: Pick<Store, 'reports'>; clock: Clock }): Promise<Record<string, number>> {
  const now = deps.clock.now().getTime();
  const { total, seenSince } = await deps.store.reports.freshness(BANDS.map(([, ms]) => new Date(now - ms).toISOString()));
  const out: Record<string, number> = {};
  BANDS.forEach(([label], i) => (out[label] = seenSince[i]! - (i > 0 ? seenSince[i - 1]! : 0)));
  out['longer ago'] = total - (seenSince.at(-1) ?? 0);
  return out;
}
