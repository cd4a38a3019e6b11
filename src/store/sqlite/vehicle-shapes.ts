import type Database from 'better-sqlite3';

/**
 * The shapes of a vehicle's history buckets (./history-dictionary.ts), kept in its latest row
 * as ascending ids separated by commas: a history page and a write's duplicate check read one
 * small row for them instead of seeking the bucket index once per shape. NULL in rows written
 * before the column existed, and then the index is asked (shapesFromIndex) until the vehicle's
 * next write fills it. A superset: retention may have removed every bucket of a shape, whose
 * page then simply finds none.
 */
export function addVehicleShapesColumn(db: Database.Database): void {
  db.transaction(() => {
    const columns = db.pragma('table_info(latest_values)') as { name: string }[];
    if (!columns.some((c) => c.name === 'shapes')) db.exec('ALTER TABLE latest_values ADD COLUMN shapes TEXT');
  }).immediate();
}

export const parseShapes = (text: string): number[] => (text === '' ? [] : text.split(',').map(Number));

export const formatShapes = (shapes: Iterable<number>): string => [...new Set(shapes)].sort((a, b) => a - b).join(',');

/** The distinct shapes of a VIN's buckets from the index, one seek each (a skip scan). */
export function shapesFromIndex(db: Database.Database): (vin: string) => number[] {
  const nextShape = db
    .prepare<[string, number], number>('SELECT shape_id FROM history_buckets WHERE vin = ? AND shape_id > ? ORDER BY shape_id LIMIT 1')
    .pluck();
  return (vin) => {
    const out: number[] = [];
    for (let s = nextShape.get(vin, -1); s !== undefined; s = nextShape.get(vin, s)) out.push(s);
    return out;
  };
}
