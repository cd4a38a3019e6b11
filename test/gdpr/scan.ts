import Database from 'better-sqlite3';
import type { Redis } from 'ioredis';
import { isCluster, masters, type RedisClient } from '../../src/queues/redis.ts';
import { join } from 'node:path';
import type { SecretBox } from '../../src/crypto.ts';

/** Where a needle was found: a table and column, or a Redis key. */
export interface Hit {
  where: string;
  sample: string;
}

/** Sealed values (src/crypto.ts SecretBox) anywhere in a text. */
const SEALED = /v1\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g;

/**
 * The text as stored plus, for every sealed value inside it, the opened text: a sealed
 * pipeline batch holds raw messages, and "encrypted" is not "erased".
 */
export function withOpened(text: string, secrets: SecretBox): string {
  const opened: string[] = [];
  for (const m of text.matchAll(SEALED)) {
    try {
      opened.push(secrets.decrypt(m[0]));
    } catch {
      // Not one of ours (or not sealed at all): the text itself is searched anyway.
    }
  }
  return opened.length === 0 ? text : `${text}\n${opened.join('\n')}`;
}

function find(where: string, text: string, needles: string[], hits: Hit[]) {
  const upper = text.toUpperCase();
  for (const n of needles) {
    const i = upper.indexOf(n.toUpperCase());
    if (i >= 0) hits.push({ where, sample: text.slice(Math.max(0, i - 40), i + n.length + 40) });
  }
}

/** Every value of every table of the SQLite store, searched for the needles (case-insensitive). */
export function scanSqlite(dataDir: string, needles: string[], secrets: SecretBox): Hit[] {
  const db = new Database(join(dataDir, 'store.sqlite'), { readonly: true, fileMustExist: true });
  const hits: Hit[] = [];
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]) {
        for (const [column, value] of Object.entries(row)) {
          if (value === null || value === undefined) continue;
          const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
          find(`sqlite ${name}.${column}`, withOpened(text, secrets), needles, hits);
        }
      }
    }
  } finally {
    db.close();
  }
  return hits;
}

/** The names of the tables in the SQLite store, for checks that the scan saw them all. */
export function sqliteTables(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'store.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
  } finally {
    db.close();
  }
}

/** The readable content of one Redis key, whatever its type. */
async function keyContent(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, '0', '-1'));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    case 'none':
      return '';
    default:
      throw new Error(`key ${key} has a type the scan does not read: ${type}`);
  }
}

/**
 * Every key under the prefix (its name and content, sealed values opened), on every master of a
 * cluster (or the one server), searched for the needles.
 */
export async function scanRedis(redis: RedisClient, prefix: string, needles: string[], secrets: SecretBox): Promise<{ hits: Hit[]; keys: string[] }> {
  const hits: Hit[] = [];
  const keys: string[] = [];
  if (isCluster(redis) && redis.status !== 'ready') await redis.ping();
  for (const server of masters(redis)) {
    const own: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await server.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      own.push(...batch);
    } while (cursor !== '0');
    for (const key of own) {
      find(`redis key name ${key}`, key, needles, hits);
      find(`redis ${key}`, withOpened(await keyContent(server, key), secrets), needles, hits);
    }
    keys.push(...own);
  }
  return { hits, keys };
}
