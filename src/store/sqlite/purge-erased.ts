import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { PurgeReport } from '../contract.ts';
import { toSqliteStoreError } from './guard.ts';

/**
 * After a GDPR erasure: leaves no byte of the deleted rows in the database file or its WAL.
 *
 * `secure_delete` zeroes a deleted cell and a freed page, but not the unused space inside a
 * page: when SQLite splits or merges b-tree pages (during ingestion, retention and the
 * erasure's own deletes) it rebuilds them and leaves the old bytes between the cell pointers
 * and the cells. Copies of the erased VIN's rows stayed there, readable in the file. Only a rebuild
 * of every page that ever held them clears that space, and interleaved ingestion spreads a VIN
 * over the whole history table, so `VACUUM` (a rewrite of the whole file) is the one sure way.
 *
 * Its cost grows with the store (measured: about 8 s for 1 million data points, 214 MB, on the
 * 2-core build machine) and it holds the write lock meanwhile, so it runs only while the file
 * is at most `maxVacuumBytes`; a larger store reports `rewriteSkipped` and needs the offline
 * VACUUM of docs/operations.md. The WAL, which still holds the old page images and receives
 * the rewrite, is then checkpointed and truncated.
 *
 * The rewrite runs on a second connection in a worker thread, so the process's event loop keeps
 * serving meanwhile: WAL readers (pulls, the console) go on; a writer of this process waits
 * for the lock as a writer of another process does (busy_timeout).
 */
export async function purgeErased(db: Database.Database, maxVacuumBytes: number): Promise<PurgeReport> {
  let rewrite: boolean;
  try {
    const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    rewrite = bytes <= maxVacuumBytes;
    // An in-memory database has no file another connection could open: it is rewritten here.
    if (db.memory) {
      if (rewrite) db.exec('VACUUM');
      return { rewriteSkipped: !rewrite };
    }
  } catch (err) {
    throw toSqliteStoreError(err);
  }
  await rewriteInThread(db.name, rewrite, db.pragma('busy_timeout', { simple: true }) as number);
  return { rewriteSkipped: !rewrite };
}

/**
 * The thread's code, plain JavaScript so that it runs the same under tsx, vitest and the
 * compiled build. It opens its own connection, rewrites and truncates, and reports an error
 * with its SQLite code, which the caller turns into the store's errors.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  db.pragma('secure_delete = ON');
  if (workerData.rewrite) db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  parentPort.postMessage({ ok: true });
} catch (err) {
  parentPort.postMessage({ ok: false, message: String(err && err.message), code: err && err.code });
} finally {
  if (db) db.close();
}
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

function rewriteInThread(file: string, rewrite: boolean, busyTimeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD, { eval: true, workerData: { driver, file, rewrite, busyTimeoutMs } });
    let answered = false;
    worker.once('message', (m: { ok: boolean; message?: string; code?: string }) => {
      answered = true;
      if (m.ok) return resolve();
      // Another process held the write lock too long: the erasure is reported unavailable and repeated.
      reject(toSqliteStoreError(Object.assign(new Error(m.message), { code: m.code })));
    });
    worker.once('error', (err) => reject(err));
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the store rewrite thread exited (code ${code}) without an answer`));
    });
  });
}
