import type Database from 'better-sqlite3';
import type { ApiKeyRecord, Consumer, ConsumerRepo } from '../contract.ts';
import { withDuplicateKey } from './unique-violation.ts';

interface ConsumerRow {
  consumer_id: string;
  name: string;
  created_at: string;
}

interface ApiKeyRow {
  key_id: string;
  consumer_id: string;
  key_hash: string;
  display_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS consumers (
  consumer_id TEXT NOT NULL PRIMARY KEY,
  name        TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  key_id         TEXT NOT NULL PRIMARY KEY,
  consumer_id    TEXT NOT NULL,
  key_hash       TEXT NOT NULL,
  display_prefix TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  revoked_at     TEXT
);
-- Authentication looks keys up by hash; two keys with one hash would make a key ambiguous.
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_key_hash_uq ON api_keys (key_hash);
CREATE INDEX IF NOT EXISTS api_keys_consumer_idx ON api_keys (consumer_id, created_at);
`;

const KEY_INDEXES = { 'api_keys.key_hash': 'api_keys.keyHash', 'api_keys.key_id': 'api_keys.keyId' };

const toConsumer = (r: ConsumerRow): Consumer => ({ consumerId: r.consumer_id, name: r.name, createdAt: r.created_at });

const toKey = (r: ApiKeyRow): ApiKeyRecord => ({
  keyId: r.key_id,
  consumerId: r.consumer_id,
  keyHash: r.key_hash,
  displayPrefix: r.display_prefix,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** SQLite engine of the ConsumerRepo. Creates its own tables and indexes. */
export function createSqliteConsumerRepo(db: Database.Database): ConsumerRepo {
  db.exec(SCHEMA);
  const insertConsumer = db.prepare(
    'INSERT INTO consumers (consumer_id, name, created_at) VALUES (@consumerId, @name, @createdAt)',
  );
  const getConsumer = db.prepare<[string], ConsumerRow>('SELECT * FROM consumers WHERE consumer_id = ?');
  const listConsumers = db.prepare<[], ConsumerRow>('SELECT * FROM consumers ORDER BY created_at, consumer_id');
  const countConsumers = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM consumers');
  const insertKey = db.prepare(
    `INSERT INTO api_keys (key_id, consumer_id, key_hash, display_prefix, created_at, revoked_at)
     VALUES (@keyId, @consumerId, @keyHash, @displayPrefix, @createdAt, @revokedAt)`,
  );
  const keyByHash = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = ?');
  const keysOfConsumer = db.prepare<[string], ApiKeyRow>(
    'SELECT * FROM api_keys WHERE consumer_id = ? ORDER BY created_at, key_id',
  );
  // Conditional on revoked_at IS NULL so a second revocation reports false and keeps the first time.
  const revokeKey = db.prepare<[string, string, string]>(
    'UPDATE api_keys SET revoked_at = ? WHERE consumer_id = ? AND key_id = ? AND revoked_at IS NULL',
  );

  return {
    async create(consumer) {
      withDuplicateKey({ 'consumers.consumer_id': 'consumers.consumerId' }, () => insertConsumer.run(consumer));
    },
    async get(consumerId) {
      const row = getConsumer.get(consumerId);
      return row ? toConsumer(row) : null;
    },
    async list() {
      return listConsumers.all().map(toConsumer);
    },
    async count() {
      return countConsumers.get()?.n ?? 0;
    },
    async addApiKey(key) {
      withDuplicateKey(KEY_INDEXES, () => insertKey.run({ ...key, revokedAt: key.revokedAt ?? null }));
    },
    async findApiKeyByHash(keyHash) {
      const row = keyByHash.get(keyHash);
      return row ? toKey(row) : null;
    },
    async listApiKeys(consumerId) {
      return keysOfConsumer.all(consumerId).map(toKey);
    },
    async revokeApiKey(consumerId, keyId, at) {
      return revokeKey.run(at, consumerId, keyId).changes === 1;
    },
  };
}
