import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLLECTIONS, shardedCollections, WRITE_CONCERN } from '../../src/store/mongo/layout.ts';
import { shardCommands } from '../../src/store/mongo/migrate.ts';
import { QUERIES } from '../../src/store/mongo/queries.ts';

// No sharded cluster runs here: the shard keys of src/store/mongo/layout.ts are checked against
// every filter the data-point engine builds (src/store/mongo/queries.ts), with the filters as
// the engine's own functions build them.

const isOperatorObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));
/** The filter names this field with one value (an equality), not a range or a list. */
const equality = (filter: Record<string, unknown>, field: string) => field in filter && !isOperatorObject(filter[field]);
/** The filter names this field with one value or with a list of values ($in): mongos targets both. */
const targeted = (filter: Record<string, unknown>, field: string) =>
  equality(filter, field) || (isOperatorObject(filter[field]) && Object.keys(filter[field] as object).join() === '$in');

describe('MongoDB shard keys against every filter (src/store/mongo/queries.ts)', () => {
  for (const [name, q] of Object.entries(QUERIES)) {
    it(`${name}: ${q.routing} on ${q.collection}`, () => {
      const key = COLLECTIONS[q.collection]?.shardKey;
      expect(key, `${q.collection} must be sharded for this check`).toBeTruthy();
      const fields = Object.keys(key!);
      const filter = q.example as Record<string, unknown>;
      if (q.hotPath) expect(q.routing).not.toBe('broadcast');
      if (q.routing === 'full-key') for (const f of fields) expect(equality(filter, f), `${name} names ${f} by equality`).toBe(true);
      if (q.routing === 'vin') expect(targeted(filter, fields[0]!), `${name} names ${fields[0]} (the VIN)`).toBe(true);
      // A filter that says broadcast truly has no VIN: the label cannot hide a routed filter.
      if (q.routing === 'broadcast') expect(targeted(filter, fields[0]!)).toBe(false);
    });
  }

  it('covers every sharded collection with at least one hot-path filter', () => {
    for (const { name } of shardedCollections()) expect(Object.values(QUERIES).some((q) => q.collection === name && q.hotPath)).toBe(true);
  });

  it('builds no filter inline in the data-point engine: every one comes from queries.ts', () => {
    for (const file of ['data-points.ts', 'point-writes.ts']) {
      const source = readFileSync(join(import.meta.dirname, '../../src/store/mongo', file), 'utf8');
      const inline = source.match(/\.(find|findOne|findOneAndUpdate|updateOne|updateMany|deleteOne|deleteMany|countDocuments|distinct)\(\s*\{/g);
      expect(inline, `${file} builds a filter inline`).toBeNull();
      const filterOps = source.match(/\.(find|findOne|findOneAndUpdate|updateOne|deleteOne|deleteMany)\(/g) ?? [];
      expect(filterOps.length).toBeGreaterThan(0);
    }
  });

  it('shards exactly the layout keys, each with the index of that key under the name shardCollection gives it', () => {
    expect(shardCommands('cvd')).toEqual([
      { enableSharding: 'cvd' },
      ...shardedCollections().map(({ name, key }) => ({ shardCollection: `cvd.${name}`, key })),
    ]);
    for (const { name, key } of shardedCollections()) {
      const index = COLLECTIONS[name]!.indexes.find((i) => JSON.stringify(i.key) === JSON.stringify(key));
      expect(index, `${name} has its shard key's index`).toBeDefined();
      expect(index!.name).toBe(Object.entries(key).map(([f, v]) => `${f}_${v}`).join('_'));
      // A unique index of a sharded collection must start with the shard key; these have none but _id.
      expect(COLLECTIONS[name]!.indexes.filter((i) => i.unique)).toEqual([]);
    }
  });

  it('states one write concern for every write: majority, journaled, bounded in time', () => {
    expect(WRITE_CONCERN).toMatchObject({ w: 'majority', journal: true });
    expect(WRITE_CONCERN.wtimeoutMS).toBeGreaterThan(0);
    for (const [name, c] of Object.entries(COLLECTIONS)) {
      expect(Object.keys(c.writes).length, `${name} lists its writes`).toBeGreaterThan(0);
      for (const wc of Object.values(c.writes)) expect(wc).toBe(WRITE_CONCERN);
    }
  });
});
