import type { DataPoint } from '../contract.ts';

/**
 * A point as schema 1 stored it (one document per point in `dataPoints`, and per (vin, item) in
 * `dataLatest`): the payload as JSON text, or, in documents older still, as a BSON document.
 * Read only by the migration to schema 2.
 */
export interface LegacyPointDoc {
  _id?: unknown;
  vin: string;
  item: string;
  timestampMs: number;
  payloadJson?: string;
  payload?: Record<string, unknown>;
  manufacturer: string;
  mappingVersion: string;
  receivedAt: string;
}

export const legacyPointOf = (d: LegacyPointDoc): DataPoint => ({
  vin: d.vin,
  item: d.item,
  timestampMs: d.timestampMs,
  payload: (d.payloadJson !== undefined ? JSON.parse(d.payloadJson) : (d.payload ?? {})) as Record<string, unknown>,
  manufacturer: d.manufacturer,
  mappingVersion: d.mappingVersion,
  receivedAt: d.receivedAt,
});

/**
 * Where a history copy stands: the last point copied, in the order of the copy's own index
 * (vin, timestampMs, _id): a vehicle's points in time order, so each bucket (a vehicle's minute)
 * is written about once, whatever the number of items.
 */
export interface CopyPosition {
  vin: string;
  timestampMs: number;
  _id: unknown;
}

/** The index the copy reads schema 1's history along (built by the migration, dropped with the collection). */
export const COPY_INDEX = { key: { vin: 1, timestampMs: 1, _id: 1 }, name: 'migration_vin_ts_id' } as const;

/** The schema-1 history after `pos`, in COPY_INDEX order. */
export function afterPosition(pos: CopyPosition | null): object {
  if (pos === null) return {};
  return {
    $or: [
      { vin: { $gt: pos.vin } },
      { vin: pos.vin, timestampMs: { $gt: pos.timestampMs } },
      { vin: pos.vin, timestampMs: pos.timestampMs, _id: { $gt: pos._id } },
    ],
  };
}

/** Schema 1's latest values after `pos`, in the order of their unique index (vin, item). */
export function afterLatestPosition(pos: { vin: string; item: string } | null): object {
  return pos === null ? {} : { $or: [{ vin: { $gt: pos.vin } }, { vin: pos.vin, item: { $gt: pos.item } }] };
}
