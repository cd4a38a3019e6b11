import type Database from 'better-sqlite3';
import { storeWrites } from './store-writes.ts';
import { inBothLayers } from './bucket-indexes.ts';

/**
 * The shapes of each vehicle's history buckets (./history-dictionary.ts), as ascending ids
 * separated by commas, in a table of one small row per vehicle: a history page and a write's
 * duplicate check read them there (one lookup in a table that stays cached) instead of seeking
 * the bucket index once per shape. Written only when a vehicle's set of shapes changes: its
 * first messages, then rarely. A vehicle without a row (a file written before the table, or one
 * whose bucket retention rewrote into a new shape) is looked up in the index, until its next
 * write keeps its shapes again. A superset: retention may have removed every bucket of a shape,
 * whose page then finds none.
 */
export const VEHICLE_SHAPES_SCHEMA = `
CREATE TABLE IF NOT EXISTS history_vehicle_shapes (
  vin    TEXT NOT NULL PRIMARY KEY,
  shapes TEXT NOT NULL
) WITHOUT ROWID;
`;

export interface VehicleShapes {
  /** The vehicle's shapes, and the text kept for them (undefined: none kept, read from the index). */
  of(vin: string): { shapes: number[]; kept: string | undefined };
  /**
   * Keeps the vehicle's shapes, `known` (what `of` answered) plus those its write added, when
   * they differ from what was kept. Inside the write transaction.
   */
  keep(vin: string, shapes: Set<number>, known: { shapes: number[]; kept: string | undefined }): void;
  /** Drops what is kept for the VIN (erasure; retention rewrote a bucket into another shape). */
  forget(vin: string): void;
}

export function createVehicleShapes(db: Database.Database): VehicleShapes {
  db.exec(VEHICLE_SHAPES_SCHEMA);
  const select = db.prepare<[string], string>('SELECT shapes FROM history_vehicle_shapes WHERE vin = ?').pluck();
  const upsert = db.prepare<[string, string]>(
    'INSERT INTO history_vehicle_shapes (vin, shapes) VALUES (?, ?) ON CONFLICT (vin) DO UPDATE SET shapes = excluded.shapes',
  );
  const remove = db.prepare<[string]>('DELETE FROM history_vehicle_shapes WHERE vin = ?');
  // The distinct shapes of a VIN's buckets, one seek in each index layer each (a skip scan).
  const nextShape = db
    .prepare<[{ vin: string; after: number }], number | null>(
      `SELECT min(s) FROM (${inBothLayers('SELECT min(shape_id) AS s FROM history_buckets WHERE {layer} AND vin = @vin AND shape_id > @after')})`,
    )
    .pluck();
  const fromIndex = (vin: string): number[] => {
    const out: number[] = [];
    for (let s = nextShape.get({ vin, after: -1 }); typeof s === 'number'; s = nextShape.get({ vin, after: s })) out.push(s);
    return out;
  };
  return {
    of(vin) {
      const kept = select.get(vin);
      return { shapes: kept === undefined ? fromIndex(vin) : kept === '' ? [] : kept.split(',').map(Number), kept };
    },
    keep(vin, shapes, known) {
      // The set only grows from what `of` answered (distinct ids): the same size is the same set,
      // as for most writes, and nothing is sorted or compared.
      if (known.kept !== undefined && shapes.size === known.shapes.length) return;
      const text = [...shapes].sort((a, b) => a - b).join(',');
      if (text === known.kept) return;
      upsert.run(vin, text);
      storeWrites.shapeRows++;
    },
    forget(vin) {
      remove.run(vin);
    },
  };
}
