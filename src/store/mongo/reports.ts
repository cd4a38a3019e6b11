import type { Db, Document } from 'mongodb';
import type { ReportsRepo, FleetQuery, FunnelRow } from '../contract.ts';
import { fleetBounds, mergeVins } from '../fleet-page.ts';
import { addVinDoc, byManufacturer, type VinDoc, type VinSummary } from './fleet-fold.ts';
import { VEHICLE_LATEST } from './layout.ts';
import { BOUNDED } from './time-limits.ts';

/**
 * The first `limit` distinct VINs of a collection in the page's range, with each one's newest
 * receivedAt and its manufacturer (src/store/mongo/fleet-fold.ts). Reads the collection in VIN order along its VIN index (the
 * latest values' _id, the activations' vin) and stops at the first VIN past the page, so a page
 * costs about `limit` documents per collection (one latest document per vehicle, one activation per
 * subscription), never the whole fleet (a $group would read every matching document first).
 */
async function vinsOf(db: Db, name: string, vinField: 'vin' | '_id', q: FleetQuery, limit: number): Promise<Map<string, VinSummary>> {
  const b = fleetBounds(q);
  const vin: Document = { [b.inclusive ? '$gte' : '$gt']: b.from, ...(b.hi ? { $lt: b.hi } : {}) };
  const filter: Document = { [vinField]: vin, ...(q.manufacturer ? { manufacturer: q.manufacturer } : {}) };
  const out = new Map<string, VinSummary>();
  // Bounded: with a manufacturer filter the walk along the vin index reads other makers' documents too.
  const options = { projection: { [vinField]: 1, manufacturer: 1, receivedAt: 1 }, ...BOUNDED };
  const cursor = db.collection<Document>(name).find(filter, options).sort({ [vinField]: 1 });
  try {
    for await (const d of cursor) if (!addVinDoc(out, { ...d, vin: d[vinField] } as VinDoc, limit)) break;
  } finally {
    await cursor.close();
  }
  return out;
}

/** MongoDB engine of the ReportsRepo. The funnel's index (consents by createdAt): src/store/mongo/layout.ts. */
export async function createMongoReportsRepo(db: Db): Promise<ReportsRepo> {
  const consents = db.collection('consents');
  return {
    async freshness(since) {
      const seen = Object.fromEntries(since.map((s, i) => [`s${i}`, { $sum: { $cond: [{ $gte: ['$last', s] }, 1, 0] } }]));
      // One latest document per vehicle, its receivedAt the newest of its values.
      const [row] = await db
        .collection(VEHICLE_LATEST)
        .aggregate<Record<string, number>>([{ $project: { last: '$receivedAt' } }, { $group: { _id: null, total: { $sum: 1 }, ...seen } }], BOUNDED)
        .toArray();
      return { total: row?.total ?? 0, seenSince: since.map((_, i) => row?.[`s${i}`] ?? 0) };
    },
    async fleet(q) {
      const [latest, claimed] = await Promise.all([vinsOf(db, VEHICLE_LATEST, '_id', q, q.limit + 1), vinsOf(db, 'vehicles', 'vin', q, q.limit + 1)]);
      const { vins, nextAfter } = mergeVins([...latest.keys()], [...claimed.keys()], q.limit);
      const items = vins.map((vin) => ({
        vin,
        manufacturer: latest.get(vin)?.manufacturer ?? claimed.get(vin)?.manufacturer ?? null,
        lastReceivedAt: latest.get(vin)?.receivedAt ?? null,
      }));
      return { items, nextAfter };
    },
    async consentFunnel(since, until) {
      const count = (cond: Document) => ({ $sum: { $cond: [cond, 1, 0] } });
      const rows = await consents
        .aggregate<FunnelRow & { _id: string | null }>([
          { $match: { createdAt: { $gte: since, $lt: until } } },
          {
            $group: {
              _id: { $ifNull: ['$manufacturer', null] },
              started: { $sum: 1 },
              approvedAtPortal: count({ $ne: [{ $ifNull: ['$consentGivenAt', null] }, null] }),
              approvedAtManufacturer: count({ $ne: [{ $ifNull: ['$activatedAt', null] }, null] }),
              active: count({ $in: ['$state', ['ACTIVE', 'CONFIRMED']] }),
              revoked: count({ $eq: ['$state', 'REVOKED'] }),
            },
          },
        ], BOUNDED)
        .toArray();
      return rows.map(({ _id, ...r }) => ({ ...r, manufacturer: _id })).sort(byManufacturer);
    },
  };
}
