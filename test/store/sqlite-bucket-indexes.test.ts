import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { STORE_SCHEMA_VERSION } from '../../src/store/sqlite/schema-version.ts';
import { fixtureCopies } from './fixtures/fixture-copies.ts';
import { storeAnswers } from './fixtures/previous-store-answers.ts';

// A data folder written by the build before the two bucket indexes (schema 4, 141618d): the
// fixture of sqlite-migration.test.ts written again by make-previous-store.ts with
// --lay-out-halfway (its first messages laid out, the rest not), so its answers are the same.
const FIXTURE = join(import.meta.dirname, 'fixtures', 'v4-store');
const expected = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'previous-store', 'answers.json'), 'utf8')) as Record<string, unknown>;
const asJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

const copyOf = fixtureCopies('cvd-indexes-');
const copyOfFixture = () => copyOf(FIXTURE);

async function answersAfterOpening(dir: string, logged: string[] = []) {
  const store = await openStore({ MONGO_URL: '', MONGO_DB: 'cvd', DATA_DIR: dir }, { info: (_o: unknown, msg?: string) => void logged.push(String(msg)) } as never);
  try {
    return await storeAnswers(store);
  } finally {
    await store.close();
  }
}

/** The file's schema version and the bucket table's indexes; with `entries`, how many buckets each partial index holds. */
function inspect(dir: string, entries = true) {
  // Not read-only: after a kill the WAL needs recovering, which a read-only connection cannot do
  // ("attempt to write a readonly database"); what was not committed is dropped, as at a start.
  const db = new Database(join(dir, 'store.sqlite'));
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      indexes: db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'history_buckets' ORDER BY name").pluck().all(),
      // INDEXED BY fails if the index does not exist or cannot serve the query.
      ...(entries
        ? {
            laidOut: db.prepare('SELECT count(*) FROM history_buckets INDEXED BY history_buckets_laid_out WHERE clustered = 1').pluck().get(),
            recent: db.prepare('SELECT count(*) FROM history_buckets INDEXED BY history_buckets_recent WHERE clustered = 0').pluck().get(),
          }
        : {}),
    };
  } finally {
    db.close();
  }
}

/** Runs the service's start-up migration in a child process; kills it `killAfterMs` after its first line. */
function migrateInChild(dir: string, killAfterMs?: number): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'migrate-child.ts')], {
      env: { ...process.env, DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let killed = false;
    child.stdout.on('data', (d: Buffer) => {
      if (lines.length === 0 && killAfterMs !== undefined) {
        setTimeout(() => {
          killed = child.kill('SIGKILL');
        }, killAfterMs);
      }
      lines.push(...d.toString().split('\n').filter(Boolean));
    });
    child.on('error', reject);
    child.on('exit', () => resolve({ lines, killed }));
  });
}

describe('SQLite bucket store of schema 4 (one index over every bucket)', () => {
  it('is refused as it is, with a message naming the way out', () => {
    const dir = copyOfFixture();
    expect(() => openSqliteStore(join(dir, 'store.sqlite'))).toThrow(/indexed as a previous version did \(schema 4\).*store migrate/);
  });

  it('gets the two partial indexes at start, logged, and every answer is the same as before', async () => {
    const dir = copyOfFixture();
    const logged: string[] = [];
    expect(asJson(await answersAfterOpening(dir, logged))).toEqual(expected);
    expect(logged[0]).toMatch(/store migration: rebuilding the history indexes of 135 buckets \(schema 4 to 5\)/);
    expect(logged.at(-1)).toMatch(/store migration done: history indexes rebuilt/);
    const after = inspect(dir);
    expect(after).toEqual({ version: STORE_SCHEMA_VERSION, indexes: ['history_buckets_laid_out', 'history_buckets_recent'], laidOut: 60, recent: 75 });
    // Opening again does nothing more; laying out the rest moves it between the indexes, same answers.
    const again: string[] = [];
    const store = await openStore({ MONGO_URL: '', MONGO_DB: 'cvd', DATA_DIR: dir }, { info: (_o: unknown, msg?: string) => void again.push(String(msg)) } as never);
    try {
      expect(await store.dataPoints.clusterHistory()).toBe(75);
      expect(asJson(await storeAnswers(store))).toEqual(expected);
    } finally {
      await store.close();
    }
    expect(again).toEqual([]);
    expect(inspect(dir)).toMatchObject({ laidOut: 135, recent: 0 });
  });

  it('killed while rebuilding, is left as it was; the next start completes it', async () => {
    const dir = copyOfFixture();
    // Enough buckets for the rebuild to take a while: 200,000 copies of one, under other VINs.
    const db = new Database(join(dir, 'store.sqlite'));
    const filler = db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
         INSERT INTO history_buckets (vin, shape_id, min_ts, max_ts, n_points, manufacturer, mapping_version, received_at, body, clustered)
         SELECT printf('FILLER%011d', i), b.shape_id, b.min_ts, b.max_ts, b.n_points, b.manufacturer, b.mapping_version, b.received_at, b.body, i % 2
         FROM n, (SELECT * FROM history_buckets ORDER BY id LIMIT 1) AS b`,
      )
      .run().changes;
    const perFiller = db.prepare('SELECT n_points FROM history_buckets ORDER BY id LIMIT 1').pluck().get() as number;
    db.close();
    expect(filler).toBe(200_000);

    const full = await migrateInChild(copyOf(dir));
    expect(full.lines.at(-1)).toMatch(/exit/);
    const took = Number(/rebuilt in ([\d.]+) s/.exec(full.lines.join('\n'))?.[1]) * 1000;
    expect(took).toBeGreaterThan(0);

    // A random point of the rebuild; on a machine that runs faster this time, the child may finish
    // first: then again on a fresh copy, sooner.
    let killedAt = Math.random() * took * 0.8;
    let killedDir = copyOf(dir);
    let first = await migrateInChild(killedDir, killedAt);
    while (!first.killed && killedAt > 1) {
      killedDir = copyOf(dir);
      first = await migrateInChild(killedDir, (killedAt /= 2));
    }
    expect(first.killed).toBe(true);
    expect(first.lines.join('\n')).not.toMatch(/migration done/);
    expect(inspect(killedDir, false)).toEqual({ version: 4, indexes: ['history_buckets_unclustered', 'history_buckets_vin_shape_ts'] });

    const logged: string[] = [];
    const answers = (await answersAfterOpening(killedDir, logged)) as { count: number };
    expect(logged.at(-1)).toMatch(/store migration done/);
    expect(asJson({ ...answers, count: answers.count - filler * perFiller })).toEqual(expected);
    expect(inspect(killedDir)).toMatchObject({ version: STORE_SCHEMA_VERSION, laidOut: 60 + 100_000, recent: 75 + 100_000 });
  }, 120_000);
});

