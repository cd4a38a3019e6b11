import type { DataPoint } from '../store/contract.ts';
import type { ConsoleContext } from './context.ts';

/** The ranges a chart can show, and how far back each reaches. */
export const RANGES = { '1h': 3_600_000, '6h': 6 * 3_600_000, '24h': 24 * 3_600_000, '7d': 7 * 86_400_000 } as const;
export type Range = keyof typeof RANGES;
export const RANGE_NAMES = Object.keys(RANGES) as Range[];
export const rangeOf = (q: string | undefined, fallback: Range): Range => (q !== undefined && q in RANGES ? (q as Range) : fallback);

/** Most points read for one history chart: the newest of its range when it holds more. */
export const CHART_POINTS = 10_000;
/** Most points one chart is sent: more are averaged per slice of the range (a chart is some 600 pixels wide). */
export const DRAWN_POINTS = 1000;
const PAGE = 1000;
/** The newest events and quarantined messages a vehicle's page lists. */
const LISTED = 20;

/** A numeric item's value, as the charts and the table read it: the payload's `value` when it is a number. */
export const numericValue = (p: Record<string, unknown>): number | null => (typeof p.value === 'number' && Number.isFinite(p.value) ? p.value : null);

/**
 * Everything a vehicle's page shows but its charts: the latest value of every catalog item it
 * has, its newest events (the push items), its activations and consent processes (without the
 * user's name or e-mail: an operator needs the states), and the quarantined messages with its VIN.
 */
export async function vehicleOverview(ctx: Pick<ConsoleContext, 'store' | 'catalog' | 'adapters' | 'config'>, vin: string) {
  const { store, catalog } = ctx;
  const items = catalog.list();
  const events = items.filter((e) => e.deliveryMethod === 'push').map((e) => e.technicalName);
  const [latest, activations, consents, quarantine, eventPages] = await Promise.all([
    store.dataPoints.latest([vin], items.map((e) => e.technicalName)),
    store.vehicles.listByVin(vin),
    store.consents.listByVin(vin),
    store.quarantine.list({ vin }, LISTED, undefined, { maxBytes: ctx.config.QUARANTINE_PAGE_MAX_BYTES }),
    Promise.all(events.map((item) => store.dataPoints.history({ vin, item, limit: LISTED }))),
  ]);
  const manufacturer = latest[0]?.manufacturer ?? activations.find((a) => a.manufacturer)?.manufacturer ?? ctx.adapters.forVin(vin)?.manifest.id ?? null;
  return {
    manufacturer,
    latest: latest.sort((a, b) => a.item.localeCompare(b.item)),
    lastReceivedAt: latest.reduce<string | null>((m, p) => (m === null || p.receivedAt > m ? p.receivedAt : m), null),
    events: eventPages
      .flatMap((p) => p.items)
      .sort((a, b) => b.timestampMs - a.timestampMs)
      .slice(0, LISTED),
    activations,
    consents: consents.map((c) => ({
      consentId: c.consentId,
      subscriptionId: c.subscriptionId,
      state: c.state,
      createdAt: c.createdAt,
      consentGivenAt: c.consentGivenAt,
      activatedAt: c.activatedAt,
      stateChangedAt: c.stateChangedAt,
    })),
    quarantine: quarantine.items,
  };
}

export interface ItemHistory {
  item: string;
  unit: string | null;
  /** Epoch seconds, oldest first, and the value at each. */
  times: number[];
  values: number[];
  /** The range held more points than a chart draws: these are its newest. */
  truncated: boolean;
}

/** One numeric item of one vehicle over the range ending now: the points of the store's history, oldest first. */
export async function itemHistory(ctx: Pick<ConsoleContext, 'store' | 'clock'>, vin: string, item: string, range: Range): Promise<ItemHistory> {
  const toMs = ctx.clock.now().getTime() + 1;
  const fromMs = toMs - 1 - RANGES[range];
  const points: DataPoint[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.store.dataPoints.history({ vin, item, fromMs, toMs, limit: PAGE, ...(cursor ? { cursor } : {}) });
    points.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && points.length < CHART_POINTS);
  const numeric = points
    .slice(0, CHART_POINTS)
    .reverse()
    .flatMap((p) => {
      const v = numericValue(p.payload);
      return v === null ? [] : [{ t: p.timestampMs / 1000, v, unit: p.payload.unit }];
    });
  const unit = numeric.find((p) => typeof p.unit === 'string')?.unit;
  const drawn = thin(numeric, fromMs / 1000, toMs / 1000);
  return { item, unit: typeof unit === 'string' ? unit : null, times: drawn.map((p) => p.t), values: drawn.map((p) => p.v), truncated: cursor !== undefined };
}

/** At most DRAWN_POINTS points: the range cut in as many slices, each slice's points averaged (time and value). */
function thin(points: { t: number; v: number }[], from: number, to: number): { t: number; v: number }[] {
  if (points.length <= DRAWN_POINTS) return points;
  const width = (to - from) / DRAWN_POINTS;
  const out: { t: number; v: number; n: number }[] = [];
  let slice = -1;
  for (const p of points) {
    const s = Math.min(DRAWN_POINTS - 1, Math.floor((p.t - from) / width));
    if (s !== slice) {
      out.push({ t: 0, v: 0, n: 0 });
      slice = s;
    }
    const o = out[out.length - 1]!;
    o.t += p.t;
    o.v += p.v;
    o.n += 1;
  }
  return out.map((o) => ({ t: o.t / o.n, v: o.v / o.n }));
}
