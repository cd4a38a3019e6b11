import type Database from 'better-sqlite3';

export const DICTIONARY_SCHEMA = `
-- Catalog item names, interned: buckets and latest rows hold the small id. Never deleted (an
-- item name is no personal data), so a process may keep the mapping in memory.
CREATE TABLE IF NOT EXISTS history_items (
  id   INTEGER PRIMARY KEY,
  name TEXT    NOT NULL UNIQUE
);
-- A bucket's shape: the sorted ids of the items it holds ("3,7,12"). A vehicle's messages come
-- in few shapes, so "the buckets of this VIN holding item X" are "the buckets of this VIN with
-- one of the few shapes holding X": the index on (vin, shape_id, max_ts) finds them without
-- reading a bucket that lacks the item, however rare the item is.
CREATE TABLE IF NOT EXISTS history_shapes (
  id    INTEGER PRIMARY KEY,
  items TEXT    NOT NULL UNIQUE
);
`;

/**
 * The interned item names and shapes, cached in this process. Ids only ever get added, so a
 * cached id stays true; an id another process added is read from the table when first met.
 * `itemId`/`shapeId` add a missing entry and must run inside the caller's write transaction.
 */
export function createHistoryDictionary(db: Database.Database) {
  db.exec(DICTIONARY_SCHEMA);
  const itemIds = new Map<string, number>();
  const itemNames = new Map<number, string>();
  const shapeIds = new Map<string, number>();
  const shapeItems = new Map<number, number[]>();
  const addItem = db.prepare<[string]>('INSERT OR IGNORE INTO history_items (name) VALUES (?)');
  const findItem = db.prepare<[string], { id: number }>('SELECT id FROM history_items WHERE name = ?');
  const itemById = db.prepare<[number], { name: string }>('SELECT name FROM history_items WHERE id = ?');
  const addShape = db.prepare<[string]>('INSERT OR IGNORE INTO history_shapes (items) VALUES (?)');
  const findShape = db.prepare<[string], { id: number }>('SELECT id FROM history_shapes WHERE items = ?');
  const shapeById = db.prepare<[number], { items: string }>('SELECT items FROM history_shapes WHERE id = ?');
  /** Counts the dictionary rows this process added (rare: a new item or message shape). */
  let added = 0;

  const learnItem = (id: number, name: string) => {
    itemIds.set(name, id);
    itemNames.set(id, name);
  };
  const learnShape = (id: number, items: string) => {
    shapeIds.set(items, id);
    shapeItems.set(id, items === '' ? [] : items.split(',').map(Number));
  };

  return {
    /**
     * Drops the cache: after a write transaction that failed, ids it added were rolled back
     * and another process may give them to other names.
     */
    forget(): void {
      itemIds.clear();
      itemNames.clear();
      shapeIds.clear();
      shapeItems.clear();
    },
    get added() {
      return added;
    },
    /** The item's id, added if new (write transaction). */
    itemId(name: string): number {
      const known = itemIds.get(name);
      if (known !== undefined) return known;
      if (addItem.run(name).changes > 0) added++;
      const id = findItem.get(name)!.id;
      learnItem(id, name);
      return id;
    },
    /** The item's id if any point of it was ever stored, else undefined (read only). */
    findItemId(name: string): number | undefined {
      const known = itemIds.get(name);
      if (known !== undefined) return known;
      const row = findItem.get(name);
      if (row) learnItem(row.id, name);
      return row?.id;
    },
    itemName(id: number): string {
      let name = itemNames.get(id);
      if (name === undefined) {
        // Looked up by id, not "above the highest known": another process may have added
        // this id before one this process learned.
        name = itemById.get(id)?.name;
        if (name !== undefined) learnItem(id, name);
      }
      if (name === undefined) throw new Error(`corrupt store: unknown item id ${id}`);
      return name;
    },
    /** The id of the shape of these (sorted, distinct) item ids, added if new (write transaction). */
    shapeId(sortedItemIds: number[]): number {
      const key = sortedItemIds.join(',');
      const known = shapeIds.get(key);
      if (known !== undefined) return known;
      if (addShape.run(key).changes > 0) added++;
      const id = findShape.get(key)!.id;
      learnShape(id, key);
      return id;
    },
    shapeItems(id: number): number[] {
      let items = shapeItems.get(id);
      if (items === undefined) {
        // By id, as for items: ids another process added come in any order.
        const row = shapeById.get(id);
        if (row) learnShape(id, row.items);
        items = shapeItems.get(id);
      }
      if (items === undefined) throw new Error(`corrupt store: unknown shape id ${id}`);
      return items;
    },
  };
}

export type HistoryDictionary = ReturnType<typeof createHistoryDictionary>;
