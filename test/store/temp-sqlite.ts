import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Store } from '../../src/store/contract.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';

/**
 * A SQLite store in a fresh directory per test, and "another process" that can hold its write
 * lock (a second connection); both closed and the directory removed after each test.
 */
export function tempSqliteStores(prefix: string) {
  let dir: string | undefined;
  let store: Store | undefined;
  let holder: Database.Database | undefined;
  afterEach(async () => {
    if (holder?.inTransaction) holder.exec('ROLLBACK');
    holder?.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = store = holder = undefined;
  });
  return {
    open(opts: Parameters<typeof openSqliteStore>[1] = {}): { file: string; store: Store } {
      dir = mkdtempSync(join(tmpdir(), prefix));
      const file = join(dir, 'store.sqlite');
      store = openSqliteStore(file, opts);
      return { file, store };
    },
    /** Takes the write lock on the file as another process would, until ROLLBACK. */
    holdWriteLock(file: string): Database.Database {
      holder = new Database(file);
      holder.exec('BEGIN EXCLUSIVE');
      return holder;
    },
  };
}
