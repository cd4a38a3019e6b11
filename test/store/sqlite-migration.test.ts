import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { STORE_SCHEMA_VERSION } from '../../src/store/sqlite/schema-version.ts';
import { fixtureCopies } from './fixtures/fixture-copies.ts';
import { storeAnswers } from './fixtures/previous-store-answers.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'previous-store');
const expected = JSON.parse(readFileSync(join(FIXTURE, 'answers.json'), 'utf8')) as Record<string, unknown>;
/** Dates and cursors as JSON carries them, so both sides compare the same way. */
const asJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

const copy = fixtureCopies('cvd-migrate-', { leaveOut: ['answers.json'] });
const copyOfFixture = () => copy(FIXTURE);

async function answersAfterOpening(dir: string, logged: string[] = []) {
  const store = await openStore({ MONGO_URL: '', MONGO_DB: 'cvd', DATA_DIR: dir }, { info: (o: unknown, msg?: string) => void logged.push(`${msg} ${JSON.stringify(o)}`) } as never);
  try {
    return await storeAnswers(store);
  } finally {
    await store.close();
  }
}

/** Runs the migration in a child process; resolves with its output lines, or kills it after `killAfter` lines. */
function migrateInChild(dir: string, killAfter?: number): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'migrate-child.ts')], {
      env: { ...process.env, DATA_DIR: dir, CHUNK_ROWS: '60', CHUNK_PAUSE_MS: '20' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let buffered = '';
    let killed = false;
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts);
      if (killAfter !== undefined && !killed && lines.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve({ lines, killed }));
  });
}

describe('SQLite store written by the previous version', () => {
  it('is refused as it is, with a message naming the way out', () => {
    const dir = copyOfFixture();
    expect(() => openSqliteStore(join(dir, 'store.sqlite'))).toThrow(/previous version.*migrat/);
  });

  it('is migrated at start, progress logged, and every answer is the same as the previous version gave', async () => {
    const dir = copyOfFixture();
    const logged: string[] = [];
    const answers = await answersAfterOpening(dir, logged);
    expect(asJson(answers)).toEqual(expected);
    expect(logged.some((l) => /store migration: history .*"rows":\d+,"total":\d+/.test(l))).toBe(true);
    expect(logged.at(-1)).toMatch(/store migration done/);
    // One file again, at the current version; the old tables are gone, nothing left beside it.
    expect(readdirSync(dir).filter((f) => !f.startsWith('store.sqlite-'))).toEqual(['store.sqlite']);
    const db = new Database(join(dir, 'store.sqlite'), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(STORE_SCHEMA_VERSION);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('data_points', 'data_latest', 'migration_progress')").all()).toEqual([]);
    db.close();
    // Opening again migrates nothing and answers the same.
    const again: string[] = [];
    expect(asJson(await answersAfterOpening(dir, again))).toEqual(expected);
    expect(again).toEqual([]);
  });

  it('completes when started again after being killed at a random point, the previous file kept meanwhile', async () => {
    const full = await migrateInChild(copyOfFixture());
    const steps = full.lines.length;
    expect(full.lines.at(-1)).toMatch(/exit/);
    expect(steps).toBeGreaterThan(6);
    for (const killAfter of [1 + Math.floor(Math.random() * (steps - 2)), 1 + Math.floor(Math.random() * (steps - 2))]) {
      const dir = copyOfFixture();
      const first = await migrateInChild(dir, killAfter);
      expect(first.killed).toBe(true);
      // Killed before the rename: the previous file is still there, unchanged in kind.
      if (existsSync(join(dir, 'store.sqlite.migrating'))) {
        const old = new Database(join(dir, 'store.sqlite'), { readonly: true });
        expect(old.prepare("SELECT count(*) AS n FROM data_points").get()).toEqual({ n: expect.any(Number) });
        old.close();
      }
      const second = await migrateInChild(dir);
      expect(second.lines.at(-1)).toMatch(/exit/);
      expect(asJson(await answersAfterOpening(dir)), `killed after ${killAfter} of ${steps} steps`).toEqual(expected);
    }
  });
});
