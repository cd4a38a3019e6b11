import type { DataPoint } from '../contract.ts';

/**
 * A point as schema 1 stored it (one document per point in `dataPoints`, and per (vin, item) in
 * `dataLatest`): the payload as JSON text, or, in documents older still, as a BSON document.
 * Read only by the migration to schema 2.
 */
export interface LegacyPointDoc {
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

/** Where a history copy stands: the last (vin, item, timestampMs) copied, in the unique index's order. */
export interface CopyPosition {
  vin: string;
  item: string;
  timestampMs: number;
}

/** The schema-1 history after `pos`, in the order of its unique index (vin, item, timestampMs). */
export function afterPosition(pos: CopyPosition | null): object {
  if (pos === null) return {};
  return {
    $or: [
      { vin: { $gt: pos.vin } },
      { vin: pos.vin, item: { $gt: pos.item } },
      { vin: pos.vin, item: pos.item, timestampMs: { $gt: pos.timestampMs } },
    ],
  };
}

/** Schema 1's latest values after `pos`, in the order of their unique index (vin, item). */
export function afterLatestPosition(pos: { vin: string; item: string } | null): object {
  return pos === null ? {} : { $or: [{ vin: { $gt: pos.vin } }, { vin: pos.vin, item: { $gt: pos.item } }] };
}
