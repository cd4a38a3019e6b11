import type { IndexDescription, WriteConcernSettings } from 'mongodb';
import { WRITE_CONCERN_TIMEOUT_MS } from './time-limits.ts';

/**
 * The MongoDB store's layout in one place: every collection, its shard key (or why it has none),
 * its indexes, and the write concern of every operation. `store migrate` builds exactly these
 * indexes and shards exactly these collections; docs/operations.md ("MongoDB") says the same in
 * prose; test/store/mongo-shard-keys.test.ts checks every hot-path filter against these keys.
 *
 * A process never builds an index: it checks the schema version (src/store/mongo/schema.ts) and
 * stops when the store is not migrated.
 */

/** The schema this release reads and writes. 1: a document per point; 2: buckets, latest per vehicle. */
export const SCHEMA_VERSION = 2;

/** Where the schema version is kept (a single document `{ _id: 'schema', version }`). */
export const META_COLLECTION = 'storeMeta';

/**
 * Every write of the engine: acknowledged by a majority of the replica set (or of each shard's
 * set), journaled, and answered within WRITE_CONCERN_TIMEOUT_MS (a set without a majority answers
 * a transient error rather than holding the write). A job completes, and an API answers 2xx,
 * only after a write that survives a failover. There is no weaker concern anywhere: a lost
 * history bucket would be a lost message, a lost latest value a wrong answer, a lost consent
 * or key a security fault. Index builds add commitQuorum 'majority' (MIGRATION_INDEX_OPTIONS).
 */
export const WRITE_CONCERN = { w: 'majority', journal: true, wtimeoutMS: WRITE_CONCERN_TIMEOUT_MS } as const satisfies WriteConcernSettings;

/** An index build of `store migrate`: ready only once a majority of data-bearing members built it. */
export const MIGRATION_INDEX_OPTIONS = { commitQuorum: 'majority' } as const;

export interface CollectionLayout {
  /** The shard key, or null: the collection stays on the database's primary shard. */
  shardKey: Record<string, 1 | 'hashed'> | null;
  /** Why this shard key (or none). */
  shardReason: string;
  indexes: IndexDescription[];
  /** Each write operation of the engine on this collection, and its write concern. */
  writes: Record<string, WriteConcernSettings>;
}

const STRINGS_ONLY = { $type: 'string' } as const;

/** A bucket of history: one document per VIN and minute of data time (src/store/mongo/buckets.ts). */
export const BUCKETS = 'dataBuckets';
/** Latest values: one document per VIN, `_id` the VIN (src/store/mongo/latest-doc.ts). */
export const VEHICLE_LATEST = 'vehicleLatest';
/** Schema 1's collections, read once by the migration to schema 2 and then dropped. */
export const LEGACY_POINTS = 'dataPoints';
export const LEGACY_LATEST = 'dataLatest';

const UNSHARDED_SMALL = 'Not sharded: it grows with consumers and configuration, not with messages; it stays on the primary shard.';

export const COLLECTIONS: Record<string, CollectionLayout> = {
  [BUCKETS]: {
    // Hashed VIN first: vehicles spread evenly over the shards whatever their VINs look like
    // (one manufacturer's VINs share a prefix); `start` second: one vehicle's years of history can
    // still be split into chunks by time. Every hot-path operation names one VIN, so mongos sends
    // it to the shards holding that VIN's chunks (usually one); only retention goes to all shards.
    shardKey: { vin: 'hashed', start: 1 },
    shardReason:
      'Every write, history page and erasure names one VIN; hashing it spreads vehicles evenly over the shards, and `start` lets one vehicle\'s history split into chunks by time (no jumbo chunk per VIN).',
    indexes: [
      // The shard key's index, under the name shardCollection gives it (so building it again on a
      // sharded cluster finds it in place); on a replica set it is built here, ready for sharding.
      { key: { vin: 'hashed', start: 1 }, name: 'vin_hashed_start_1' },
      // History pages: equality on the VIN and on one item (multikey over the items a bucket holds),
      // buckets newest first from the index. A sparse item's page reads only the buckets that hold
      // it, never the vehicle's other history; erasure by VIN uses its prefix.
      { key: { vin: 1, items: 1, start: -1 }, name: 'buckets_vin_item_start' },
      // Retention: whole buckets older than the cutoff.
      { key: { start: 1 }, name: 'buckets_start' },
    ],
    writes: { 'insertMany (bucket upsert)': WRITE_CONCERN, 'deleteByVin': WRITE_CONCERN, 'deleteOlderThan (delete and trim)': WRITE_CONCERN },
  },
  [VEHICLE_LATEST]: {
    shardKey: { _id: 'hashed' },
    shardReason:
      'One document per vehicle, _id the VIN: delivery reads `_id $in [VINs]` and each message writes `_id = VIN`, both routed by the hashed key; hashing spreads vehicles evenly.',
    // The shard key's index, under shardCollection's name for it.
    indexes: [{ key: { _id: 'hashed' }, name: '_id_hashed' }],
    writes: { 'insertMany (newer-wins update)': WRITE_CONCERN, 'deleteByVin': WRITE_CONCERN },
  },
  [META_COLLECTION]: { shardKey: null, shardReason: 'One document (the schema version).', indexes: [], writes: { 'store migrate (version)': WRITE_CONCERN } },
  consumers: {
    shardKey: null,
    shardReason: UNSHARDED_SMALL,
    indexes: [
      { key: { consumerId: 1 }, name: 'consumers_consumer_id_uq', unique: true },
      { key: { createdAt: 1, consumerId: 1 }, name: 'consumers_created_idx' },
    ],
    writes: { create: WRITE_CONCERN },
  },
  apiKeys: {
    shardKey: null,
    shardReason: UNSHARDED_SMALL,
    indexes: [
      // Authentication looks keys up by hash; two keys with one hash would make a key ambiguous.
      { key: { keyHash: 1 }, name: 'api_keys_key_hash_uq', unique: true },
      { key: { keyId: 1 }, name: 'api_keys_key_id_uq', unique: true },
      { key: { consumerId: 1, createdAt: 1 }, name: 'api_keys_consumer_idx' },
    ],
    writes: { addApiKey: WRITE_CONCERN, revokeApiKey: WRITE_CONCERN },
  },
  subscriptions: {
    shardKey: null,
    shardReason: UNSHARDED_SMALL,
    indexes: [
      { key: { subscriptionId: 1 }, name: 'subscriptions_subscription_id_uq', unique: true },
      { key: { consumerId: 1, createdAt: 1 }, name: 'subscriptions_consumer_idx' },
      // Multikey: push fan-out asks "who wants this item" for every data point.
      { key: { dataItems: 1 }, name: 'subscriptions_data_items_idx' },
    ],
    writes: { create: WRITE_CONCERN },
  },
  vehicles: {
    shardKey: null,
    shardReason:
      'Not sharded: one document per activation (about the fleet\'s size, a few hundred bytes each), and its pages are by subscription or manufacturer, not by VIN; a unique index (subscriptionId, vin) needs no shard key prefix while it is not sharded.',
    indexes: [
      // A VIN is activated at most once per subscription: two concurrent activations meet here.
      { key: { subscriptionId: 1, vin: 1 }, name: 'vehicles_subscription_vin_uq', unique: true },
      { key: { vin: 1 }, name: 'vehicles_vin_idx' },
      // Pages of one subscription's vehicles, and of one manufacturer's activated ones, are seeks.
      { key: { subscriptionId: 1, createdAt: 1, vin: 1 }, name: 'vehicles_subscription_created_idx' },
      { key: { status: 1, manufacturer: 1, vin: 1, subscriptionId: 1 }, name: 'vehicles_activated_idx' },
    ],
    writes: { upsert: WRITE_CONCERN, transition: WRITE_CONCERN, deleteByVin: WRITE_CONCERN, deleteBySubscriptionAndVin: WRITE_CONCERN },
  },
  consents: {
    shardKey: null,
    shardReason:
      'Not sharded: one document per consent process; its unique hashes (code, OAuth state) would need the shard key as their prefix, which a lookup by hash does not have.',
    indexes: [
      { key: { consentId: 1 }, name: 'consentId_1', unique: true },
      // Partial: many processes have no code or state yet; only real values must be unique.
      { key: { codeHash: 1 }, name: 'codeHash_1', unique: true, partialFilterExpression: { codeHash: STRINGS_ONLY } },
      { key: { oauthStateHash: 1 }, name: 'oauthStateHash_1', unique: true, partialFilterExpression: { oauthStateHash: STRINGS_ONLY } },
      { key: { subscriptionId: 1, vin: 1, state: 1 }, name: 'subscription_vin_state' },
      // A subscription's processes newest first (the consumer's list), with or without a VIN: the
      // sort comes from the index, so a long list is never sorted in memory.
      { key: { subscriptionId: 1, createdAt: -1, consentId: 1 }, name: 'subscription_created' },
      { key: { subscriptionId: 1, vin: 1, createdAt: -1, consentId: 1 }, name: 'subscription_vin_created' },
      { key: { vin: 1 }, name: 'vin_1' },
      // The retention sweep looks processes up by state and age.
      { key: { state: 1, stateChangedAt: 1 }, name: 'state_stateChangedAt' },
      // The consent funnel (console reports) by creation time.
      { key: { createdAt: 1 }, name: 'consents_created_idx' },
    ],
    writes: { create: WRITE_CONCERN, transition: WRITE_CONCERN, keepNewest: WRITE_CONCERN, deleteChangedBefore: WRITE_CONCERN, deleteByVin: WRITE_CONCERN, deleteBySubscriptionAndVin: WRITE_CONCERN },
  },
  quarantine: {
    shardKey: null,
    shardReason:
      'Not sharded: bounded by retention and by what fails to map; its list is by time across manufacturers, so no key would route it. Each entry stays under 16 MiB (src/store/mongo/bson-size.ts).',
    indexes: [
      { key: { lastFailedAt: -1, _id: -1 }, name: 'quarantine_failed_idx' },
      // With the page's whole sort key (lastFailedAt, _id), so a page by manufacturer stops after `limit`.
      { key: { manufacturer: 1, lastFailedAt: -1, _id: -1 }, name: 'quarantine_manufacturer_idx' },
      { key: { vin: 1 }, name: 'quarantine_vin_idx' },
    ],
    writes: { put: WRITE_CONCERN, remove: WRITE_CONCERN, deleteOlderThan: WRITE_CONCERN, deleteByVin: WRITE_CONCERN },
  },
  webhooks: {
    shardKey: null,
    shardReason: UNSHARDED_SMALL,
    // A subscription's further endpoints (the default one is found by _id).
    indexes: [{ key: { subscriptionId: 1, endpointId: 1 }, name: 'webhooks_endpoints', sparse: true }],
    writes: { put: WRITE_CONCERN, delete: WRITE_CONCERN, setSecrets: WRITE_CONCERN, recordFailure: WRITE_CONCERN, recordSuccess: WRITE_CONCERN, disable: WRITE_CONCERN },
  },
  deliveries: {
    shardKey: null,
    shardReason:
      'Not sharded yet: bounded by push retention (days); the reconciler looks across all subscriptions by status and age, which no shard key would route. The first collection to shard after the data ones, on { subscriptionId: "hashed" }, if push volume outgrows one shard.',
    indexes: [
      { key: { subscriptionId: 1, createdAt: -1, _id: -1 }, name: 'deliveries_subscription' },
      // A subscription's deliveries in one status (the in-flight ones when its webhook is deleted).
      { key: { subscriptionId: 1, status: 1, createdAt: -1, _id: -1 }, name: 'deliveries_subscription_status' },
      { key: { vin: 1 }, name: 'deliveries_vin' },
      // Retention deletes by age across all subscriptions.
      { key: { createdAt: 1 }, name: 'deliveries_created' },
      // The push reconciler's look for overdue in-flight rows (status $in, then a range on updatedAt).
      { key: { status: 1, updatedAt: 1, _id: 1 }, name: 'deliveries_status_updated' },
    ],
    writes: { insertIfAbsent: WRITE_CONCERN, recordAttempt: WRITE_CONCERN, transition: WRITE_CONCERN, deleteOlderThan: WRITE_CONCERN, deleteByVin: WRITE_CONCERN, deleteBySubscriptionAndVin: WRITE_CONCERN },
  },
  auditEvents: {
    shardKey: null,
    shardReason: 'Not sharded: administrative events (keys, consents, erasures), far fewer than messages.',
    // Each index ends with list()'s whole sort key (at, then _id), so the index order is the
    // answer's order; without _id every list would sort all matching events in memory.
    indexes: [
      { key: { type: 1, at: 1, _id: 1 }, name: 'audit_events_type_idx' },
      { key: { subject: 1, at: 1, _id: 1 }, name: 'audit_events_subject_idx' },
      { key: { at: 1, _id: 1 }, name: 'audit_events_at_idx' },
    ],
    writes: { record: WRITE_CONCERN },
  },
};

/** The collections that are sharded on a sharded cluster, with their keys. */
export function shardedCollections(): Array<{ name: string; key: Record<string, 1 | 'hashed'> }> {
  return Object.entries(COLLECTIONS).flatMap(([name, c]) => (c.shardKey ? [{ name, key: c.shardKey }] : []));
}
