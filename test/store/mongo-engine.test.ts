import { createRequire } from 'node:module';
import {
  BSON,
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { DuplicateKeyError, StoreUnavailableError } from '../../src/store/contract.ts';
import { guardRepo } from '../../src/store/guard-store.ts';
import { duplicateIndexes, duplicateKeyError, isTransient, toStoreError, upsertRetrying } from '../../src/store/mongo/errors.ts';
import { MONGO_CLIENT_OPTIONS, openMongoStore } from '../../src/store/mongo/open.ts';
import { MAX_TIME_MS } from '../../src/store/mongo/time-limits.ts';
import { quarantineUpsert } from '../../src/store/mongo/quarantine.ts';
import { entryOf, pointOf } from '../../src/store/mongo/buckets.ts';
import { legacyPointOf } from '../../src/store/mongo/legacy-points.ts';
import { toWebhookRecord, type WebhookDoc } from '../../src/store/mongo/webhooks.ts';
import type { QuarantinedMessage } from '../../src/store/contract.ts';

// No MongoDB server runs here, so the conformance suite cannot reach the engine (see
// mongo.test.ts). These tests cover what can be checked without one: the client options and
// how the engine reads the driver's own error objects (built with the driver's classes, the
// way its bulk executor builds them), plus a real connection attempt to a closed port.
const { BulkWriteResult, WriteConcernError, WriteError } = createRequire(import.meta.url)('mongodb/lib/bulk/common.js') as {
  BulkWriteResult: new (bulkResult: object, ordered: boolean) => MongoBulkWriteError['result'];
  WriteConcernError: new (error: object) => object;
  WriteError: new (error: object) => { code: number; index: number };
};

/** The error an unordered insert of `n` documents throws, as the driver's executor makes it. */
function bulkError(n: number, writeErrors: Array<{ index: number; code: number }>, writeConcernCode?: number): MongoBulkWriteError {
  const errors = writeErrors.map((e) => new WriteError({ ...e, errmsg: `E${e.code} failure` }));
  const wce = writeConcernCode ? [new WriteConcernError({ code: writeConcernCode, errmsg: 'waiting for replication timed out' })] : [];
  const result = new BulkWriteResult(
    {
      ok: 1,
      writeErrors: errors,
      writeConcernErrors: wce,
      insertedIds: Array.from({ length: n }, (_, index) => ({ index, _id: index })),
      nInserted: n - errors.length,
      nUpserted: 0,
      nMatched: 0,
      nModified: 0,
      nRemoved: 0,
      upserted: [],
    },
    false,
  );
  return errors.length > 0
    ? new MongoBulkWriteError({ message: 'E11000 duplicate key error', code: errors[0]!.code, writeErrors: errors as never }, result)
    : new MongoBulkWriteError(wce[0] as never, result);
}

/** What the bulk executor has gathered when the first batch fails before any answer. */
const nothingWritten = () =>
  new BulkWriteResult(
    { ok: 1, writeErrors: [], writeConcernErrors: [], insertedIds: [], nInserted: 0, nUpserted: 0, nMatched: 0, nModified: 0, nRemoved: 0, upserted: [] },
    false,
  );

describe('MongoDB engine without a server', () => {
  it('writes with majority and journaling, reads majority, retries writes (acknowledged only once durable)', () => {
    expect(MONGO_CLIENT_OPTIONS.writeConcern).toMatchObject({ w: 'majority', journal: true });
    expect(MONGO_CLIENT_OPTIONS.readConcern).toEqual({ level: 'majority' });
    expect(MONGO_CLIENT_OPTIONS.retryWrites).toBe(true);
  });

  it('bounds how long a silent server can hold an operation', () => {
    expect(MONGO_CLIENT_OPTIONS.socketTimeoutMS).toBeGreaterThan(0);
    expect(MONGO_CLIENT_OPTIONS.connectTimeoutMS).toBeGreaterThan(0);
    // A socket timeout surfaces as a network error: transient, so the store answers 503.
    expect(toStoreError(new MongoNetworkTimeoutError('connection timed out'))).toBeInstanceOf(StoreUnavailableError);
  });

  it('lets the server end a slow scan or a majority wait before the client gives up on the socket', () => {
    // Otherwise the client closes the socket, the server goes on, and the retry runs a second copy.
    expect(MAX_TIME_MS).toBeLessThan(MONGO_CLIENT_OPTIONS.socketTimeoutMS);
    expect(MONGO_CLIENT_OPTIONS.writeConcern.wtimeoutMS).toBeGreaterThan(0);
    expect(MONGO_CLIENT_OPTIONS.writeConcern.wtimeoutMS).toBeLessThan(MONGO_CLIENT_OPTIONS.socketTimeoutMS);
    // What the server then answers is transient: 503 and a retry, not a 500.
    expect(toStoreError(new MongoServerError({ message: 'operation exceeded time limit', code: 50 }))).toBeInstanceOf(StoreUnavailableError);
    const wtimeout = new MongoWriteConcernError({ ok: 1, n: 1, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } });
    expect(toStoreError(wtimeout)).toBeInstanceOf(StoreUnavailableError);
  });

  it('reads which documents of an unordered insert were refused as duplicates', () => {
    expect(duplicateIndexes(bulkError(5, [{ index: 1, code: 11000 }, { index: 3, code: 11000 }]))).toEqual(new Set([1, 3]));
  });

  it('does not mistake any other write failure for "already there"', () => {
    const mixed = bulkError(3, [{ index: 0, code: 11000 }, { index: 2, code: 121 }]);
    expect(() => duplicateIndexes(mixed)).toThrow(mixed);
    expect(isTransient(mixed)).toBe(false);
    // Duplicates plus a missed majority write concern: the batch is not durable, retry it.
    const notDurable = bulkError(3, [{ index: 0, code: 11000 }], 64);
    expect(() => duplicateIndexes(notDurable)).toThrow(notDurable);
    expect(toStoreError(notDurable)).toBeInstanceOf(StoreUnavailableError);
    expect(toStoreError(bulkError(3, [], 64))).toBeInstanceOf(StoreUnavailableError);
    const plain = new Error('boom');
    expect(() => duplicateIndexes(plain)).toThrow(plain);
  });

  it('treats a batch cut short by a step-down as an outage, even when an E11000 comes first', () => {
    // Operation 0 was there already; operations 1 and 2 could not run once the primary stepped down.
    const cutShort = bulkError(3, [{ index: 0, code: 11000 }, { index: 1, code: 11602 }, { index: 2, code: 11602 }]);
    expect(() => duplicateIndexes(cutShort)).toThrow(cutShort);
    expect(toStoreError(cutShort)).toBeInstanceOf(StoreUnavailableError);
  });

  it('sees an outage through the MongoBulkWriteError that insertMany and bulkWrite wrap it in', () => {
    // lib/bulk/common.js executeCommands: a batch that failed with anything but a write concern
    // error is rethrown as new MongoBulkWriteError(thrownError, <result so far>).
    for (const outage of [new MongoNetworkError('connection reset'), new MongoServerSelectionError('Server selection timed out after 5000 ms', {} as never)]) {
      const wrapped = new MongoBulkWriteError(outage as never, nothingWritten());
      expect(() => duplicateIndexes(wrapped)).toThrow(wrapped);
      expect(toStoreError(wrapped)).toBeInstanceOf(StoreUnavailableError);
    }
    const notAnOutage = new MongoBulkWriteError(new MongoServerError({ message: 'bad value', code: 2 }) as never, nothingWritten());
    expect(toStoreError(notAnOutage)).toBe(notAnOutage);
  });

  it('classifies outages as transient and refusals as not', () => {
    expect(isTransient(new MongoNetworkError('socket hang up'))).toBe(true);
    expect(isTransient(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(true);
    expect(isTransient(new MongoServerError({ message: 'E11000', code: 11000 }))).toBe(false);
    expect(isTransient(new MongoServerError({ message: 'bad value', code: 2 }))).toBe(false);
    expect(isTransient(new TypeError('x'))).toBe(false);
    // mongos while a shard has no primary, or a shard that does not answer in time.
    expect(isTransient(new MongoServerError({ message: 'Could not find host matching read preference', code: 133 }))).toBe(true);
    expect(isTransient(new MongoServerError({ message: "Couldn't get a connection within the time limit", code: 202 }))).toBe(true);
    // The driver's own word for a server dropped from the topology while an operation was on its way.
    expect(isTransient(new MongoServerClosedError())).toBe(true);
  });

  it('names the unique index an E11000 hit by its key pattern', () => {
    const err = new MongoServerError({ message: 'E11000 duplicate key error', code: 11000, keyPattern: { keyHash: 1 }, keyValue: { keyHash: 'h' } });
    const mapped = duplicateKeyError(err, { keyHash: 'api_keys.keyHash' });
    expect(mapped).toBeInstanceOf(DuplicateKeyError);
    expect(mapped.index).toBe('api_keys.keyHash');
  });

  it('guards repositories: outages become StoreUnavailableError, everything else passes unchanged', async () => {
    const refusal = new DuplicateKeyError('x');
    const bug = new RangeError('invalid history cursor');
    const repo = guardRepo({
      down: async () => {
        throw new MongoNetworkError('connection reset');
      },
      dup: async () => {
        throw refusal;
      },
      bad: async () => {
        throw bug;
      },
      ok: async (n: number) => n + 1,
    }, toStoreError);
    await expect(repo.down()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(repo.dup()).rejects.toBe(refusal);
    await expect(repo.bad()).rejects.toBe(bug);
    expect(await repo.ok(1)).toBe(2);
  });

  it('retries an upsert that lost an insert race, and gives up after three E11000', async () => {
    const e11000 = new MongoServerError({ message: 'E11000', code: 11000 });
    let calls = 0;
    expect(await upsertRetrying(async () => (++calls === 1 ? Promise.reject(e11000) : 'updated'))).toBe('updated');
    expect(calls).toBe(2);
    calls = 0;
    await expect(upsertRetrying(async () => (++calls, Promise.reject(e11000)))).rejects.toBe(e11000);
    expect(calls).toBe(3);
  });

  it('quarantine: a later failure that learned the VIN records it; one that did not keeps the stored VIN', () => {
    const message = (vin: string | null): QuarantinedMessage => ({
      id: 'q1', manufacturer: 'virtual', messageType: 'telemetry', code: 'SCHEMA_VIOLATION', reason: 'r', mappingVersion: 'v2', vin,
      topic: null, raw: 'AAEC', rawEncoding: 'base64', rawTruncated: false, receivedAt: 'T0', quarantinedAt: 'T1', lastFailedAt: 'T1', failures: 1,
    });
    const known = quarantineUpsert(message('V1RTUALV1N0000001')).update;
    expect(known.$set).toMatchObject({ vin: 'V1RTUALV1N0000001', lastFailedAt: 'T1' });
    expect(known.$setOnInsert).not.toHaveProperty('vin');
    const unknown = quarantineUpsert(message(null));
    expect(unknown.update.$set).not.toHaveProperty('vin');
    expect(unknown.update.$setOnInsert).toMatchObject({ vin: null, quarantinedAt: 'T1' });
    // The same report again (same lastFailedAt) matches nothing, so it is not counted twice.
    expect(unknown.filter).toEqual({ _id: 'q1', lastFailedAt: { $ne: 'T1' } });
    // Items that failed alone are set; a whole-message failure clears them.
    expect(quarantineUpsert({ ...message(null), failedItems: ['fuellevel'] }).update).toMatchObject({ $set: { failedItems: ['fuellevel'] } });
    expect(quarantineUpsert({ ...message(null), failedItems: ['fuellevel'] }).update).not.toHaveProperty('$unset');
    expect(unknown.update.$unset).toEqual({ failedItems: '' });
  });

  it('stores a payload whose keys BSON refuses (a NUL character, a leading $) and reads it back unchanged', () => {
    const payload = { 'a\u0000b': 1, $weird: { 'x.y': 'z' }, nested: [{ 'k\u0000': true }] };
    const point = { vin: 'V1RTUALV1N0000001', item: 'x', timestampMs: 1, payload, manufacturer: 'virtual', mappingVersion: 'v1', receivedAt: 'T0' };
    // The documents the engine writes go through the driver's own BSON serializer.
    expect(() => BSON.serialize({ ...point })).toThrow(/null bytes/);
    const entry = BSON.deserialize(BSON.serialize({ [String(point.timestampMs)]: entryOf(point) }))[String(point.timestampMs)] as ReturnType<typeof entryOf>;
    expect(pointOf(point.vin, point.item, point.timestampMs, entry)).toEqual(point);
    // A schema-1 document written before payloads were kept as text is still read by the migration.
    const { payload: _p, ...rest } = point;
    expect(legacyPointOf({ ...rest, payload: { a: 1 } }).payload).toEqual({ a: 1 });
    expect(legacyPointOf({ ...rest, payloadJson: JSON.stringify(payload) })).toEqual(point);
  });

  it('webhooks: a document stored before the notices opt-in reads as opted out; one with notices keeps them', () => {
    const doc: WebhookDoc = {
      _id: 'sub-1', url: 'https://hooks.example.com/in', secrets: [], authorizationSealed: null, items: [], minIntervalSeconds: 60,
      status: 'ENABLED', disabledReason: null, failingSince: null, createdAt: 'T0', updatedAt: 'T0',
    };
    const older = BSON.deserialize(BSON.serialize(doc)) as WebhookDoc;
    expect(toWebhookRecord(older)).toMatchObject({ subscriptionId: 'sub-1', notices: [] });
    expect(toWebhookRecord({ ...doc, notices: ['consent.revoked'] }).notices).toEqual(['consent.revoked']);
  });

  it('fails to open on an unreachable server with StoreUnavailableError', async () => {
    const port = await freePort();
    await expect(openMongoStore(`mongodb://127.0.0.1:${port}/?directConnection=true`, 'cvd_unreachable')).rejects.toBeInstanceOf(StoreUnavailableError);
  }, 20_000);
});
