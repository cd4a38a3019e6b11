import { MongoClient, MongoServerError, type Db, type Document } from 'mongodb';
import type { BucketDoc } from './buckets.ts';
import { afterLatestPosition, afterPosition, COPY_INDEX, legacyPointOf, type CopyPosition, type LegacyPointDoc } from './legacy-points.ts';
import { BUCKETS, COLLECTIONS, LEGACY_LATEST, LEGACY_POINTS, META_COLLECTION, MIGRATION_INDEX_OPTIONS, SCHEMA_VERSION, VEHICLE_LATEST, WRITE_CONCERN, shardedCollections } from './layout.ts';
import { toStoreError } from './errors.ts';
import type { LatestDoc } from './latest-doc.ts';
import { MONGO_CLIENT_OPTIONS } from './open.ts';
import { advanceLatest, storeHistory } from './point-writes.ts';
import { readSchemaVersion, schemaRefusal, StoreNotMigratedError } from './schema.ts';

/** Points copied per batch: each batch's position is saved, so an interrupted copy resumes there. */
const COPY_BATCH = 20_000;
const PROGRESS_ID = 'migration-2';

export interface MongoMigrationOptions {
  /** Shard the collections layout.ts names (MONGO_URL must point at a mongos) before the rest. */
  shard?: boolean;
  /** Progress lines for the operator. */
  note(text: string): void;
}

export interface MongoMigrationReport {
  engine: 'mongo';
  fromVersion: number | null;
  toVersion: number;
  indexesBuilt: number;
  pointsCopied: number;
  latestValuesCopied: number;
  sharded: string[];
}

interface ProgressDoc {
  _id: string;
  phase: 'history' | 'latest';
  after: CopyPosition | null;
  latestAfter: { vin: string; item: string } | null;
  copied: number;
}

/** The `shardCollection` commands of a sharded cluster, from layout.ts (also what docs/operations.md lists). */
export function shardCommands(dbName: string): Document[] {
  return [{ enableSharding: dbName }, ...shardedCollections().map(({ name, key }) => ({ shardCollection: `${dbName}.${name}`, key }))];
}

async function exists(db: Db, name: string): Promise<boolean> {
  return (await db.listCollections({ name }, { nameOnly: true }).toArray()).length > 0;
}

async function shard(client: MongoClient, dbName: string, note: (t: string) => void): Promise<string[]> {
  const done: string[] = [];
  for (const command of shardCommands(dbName)) {
    try {
      await client.db('admin').command(command);
    } catch (err) {
      // Run again on a sharded collection (same key): code 20 AlreadyInitialized on older servers.
      if (!(err instanceof MongoServerError && err.code === 20 && /already sharded/i.test(err.message))) throw err;
    }
    if (command['shardCollection']) done.push(String(command['shardCollection']));
    note(`sharding: ${JSON.stringify(command)}`);
  }
  return done;
}

/** Builds every index of layout.ts; one already in place (same key and name) is left as it is. */
async function buildIndexes(db: Db, withQuorum: boolean, note: (t: string) => void): Promise<number> {
  let built = 0;
  for (const [name, layout] of Object.entries(COLLECTIONS)) {
    if (layout.indexes.length === 0) continue;
    note(`indexes: ${name} (${layout.indexes.map((i) => i.name).join(', ')})`);
    // commitQuorum: ready only once a majority of data-bearing members built it (a replica set or a
    // cluster's shards; a standalone server refuses the option).
    // Its write concern: the client's, WRITE_CONCERN.
    await db.collection(name).createIndexes(layout.indexes, withQuorum ? MIGRATION_INDEX_OPTIONS : {});
    built += layout.indexes.length;
  }
  return built;
}

/**
 * Schema 1 to 2: copies `dataPoints` into buckets and `dataLatest` into one document per vehicle.
 * Both writes are idempotent (a point already in its bucket stays, latest moves only forward), so
 * the copy saves its position after each batch and an interrupted run resumes from it; the old
 * collections are dropped only once the schema version says 2.
 */
async function copyLegacy(db: Db, withQuorum: boolean, note: (t: string) => void): Promise<{ points: number; latestValues: number }> {
  const meta = db.collection<ProgressDoc>(META_COLLECTION);
  const buckets = db.collection<BucketDoc>(BUCKETS);
  const latest = db.collection<LatestDoc>(VEHICLE_LATEST);
  const saved = await meta.findOne({ _id: PROGRESS_ID });
  const progress: ProgressDoc = saved ?? { _id: PROGRESS_ID, phase: 'history', after: null, latestAfter: null, copied: 0 };
  const save = () => meta.replaceOne({ _id: PROGRESS_ID }, progress, { upsert: true, writeConcern: WRITE_CONCERN });
  if (saved) note(`resuming the copy after ${progress.copied} points (${progress.phase})`);
  const legacyPoints = db.collection<LegacyPointDoc>(LEGACY_POINTS);
  if (progress.phase === 'history' && (await exists(db, LEGACY_POINTS))) {
    // Read along (vin, timestampMs, _id), not the unique index's (vin, item, timestampMs): a batch
    // then holds whole minutes of one vehicle, and a bucket is written about once, not once per item.
    note(`index ${COPY_INDEX.name} on ${LEGACY_POINTS} (for the copy; dropped with it)`);
    await legacyPoints.createIndexes([COPY_INDEX], withQuorum ? MIGRATION_INDEX_OPTIONS : {});
    for (;;) {
      const batch = await legacyPoints.find(afterPosition(progress.after)).sort(COPY_INDEX.key).hint(COPY_INDEX.name).limit(COPY_BATCH).toArray();
      if (batch.length === 0) break;
      await storeHistory(buckets, batch.map(legacyPointOf));
      const last = batch.at(-1)!;
      progress.after = { vin: last.vin, timestampMs: last.timestampMs, _id: last._id };
      progress.copied += batch.length;
      await save();
      note(`history: ${progress.copied} points copied`);
    }
  }
  progress.phase = 'latest';
  await save();
  let latestValues = 0;
  if (await exists(db, LEGACY_LATEST)) {
    const legacyLatest = db.collection<LegacyPointDoc>(LEGACY_LATEST);
    for (;;) {
      // In the order of its unique index (vin, item); a vehicle's items may span two batches:
      // each batch moves its points' latest values forward, which any order allows.
      const batch = await legacyLatest
        .find(afterLatestPosition(progress.latestAfter), { projection: { _id: 0 } })
        .sort({ vin: 1, item: 1 })
        .limit(COPY_BATCH)
        .toArray();
      if (batch.length === 0) break;
      await advanceLatest(latest, batch.map(legacyPointOf));
      const last = batch.at(-1)!;
      progress.latestAfter = { vin: last.vin, item: last.item };
      latestValues += batch.length;
      await save();
      note(`latest: ${latestValues} latest values copied`);
    }
  }
  return { points: progress.copied, latestValues };
}

async function setVersion(db: Db): Promise<void> {
  await db
    .collection(META_COLLECTION)
    .updateOne({ _id: 'schema' as never }, { $set: { version: SCHEMA_VERSION, migratedAt: new Date().toISOString() } }, { upsert: true, writeConcern: WRITE_CONCERN });
}

/** Drops schema 1's collections and the copy's position (also left over by a run stopped after the version was set). */
async function dropLegacy(db: Db, note: (t: string) => void): Promise<void> {
  for (const name of [LEGACY_POINTS, LEGACY_LATEST]) {
    if (await exists(db, name)) {
      await db.collection(name).drop({ writeConcern: WRITE_CONCERN });
      note(`dropped ${name} (schema 1)`);
    }
  }
  await db.collection(META_COLLECTION).deleteOne({ _id: PROGRESS_ID as never }, { writeConcern: WRITE_CONCERN });
}

/**
 * `store migrate` on MongoDB: shards the collections (with `--shard`, on a mongos), builds every
 * index of layout.ts (commitQuorum 'majority'), moves schema 1's data into schema 2's layout and
 * sets the schema version. Safe to run again at any time; run it with the service's processes
 * stopped (they would write schema 1 meanwhile). Its client has no socket timeout: an index build
 * on a large collection answers only when done.
 */
export async function migrateMongoStore(url: string, dbName: string, opts: MongoMigrationOptions): Promise<MongoMigrationReport> {
  const client = new MongoClient(url, { ...MONGO_CLIENT_OPTIONS, socketTimeoutMS: 0 });
  try {
    await client.connect();
    const db = client.db(dbName);
    const hello = await db.admin().command({ hello: 1 });
    const onMongos = hello['msg'] === 'isdbgrid';
    const fromVersion = await readSchemaVersion(db);
    if (fromVersion !== null && fromVersion > SCHEMA_VERSION) throw new StoreNotMigratedError(schemaRefusal(fromVersion, dbName)!);
    opts.note(`MongoDB database "${dbName}": schema version ${fromVersion ?? 'none'}, this release's ${SCHEMA_VERSION}${onMongos ? ' (through mongos)' : ''}`);
    let sharded: string[] = [];
    if (opts.shard) {
      if (!onMongos) throw new Error('--shard needs MONGO_URL to name a mongos of a sharded cluster');
      sharded = await shard(client, dbName, opts.note);
    } else if (onMongos) {
      opts.note('through mongos without --shard: the collections stay unsharded (run again with --shard to shard them)');
    }
    const withQuorum = onMongos || typeof hello['setName'] === 'string';
    const indexesBuilt = await buildIndexes(db, withQuorum, opts.note);
    const copied = fromVersion === SCHEMA_VERSION ? { points: 0, latestValues: 0 } : await copyLegacy(db, withQuorum, opts.note);
    await setVersion(db);
    await dropLegacy(db, opts.note);
    opts.note(`schema version ${SCHEMA_VERSION}`);
    return { engine: 'mongo', fromVersion, toVersion: SCHEMA_VERSION, indexesBuilt, pointsCopied: copied.points, latestValuesCopied: copied.latestValues, sharded };
  } catch (err) {
    // An unreachable server says "store unavailable" as everywhere else; the run can be repeated.
    throw toStoreError(err);
  } finally {
    await client.close().catch(() => undefined);
  }
}
