import type Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often a write waiting for another process's lock tries again. */
const POLL_MS = 1;

/**
 * Runs a write transaction that takes the write lock up front (`.immediate`), waiting for
 * another process that holds the lock without blocking this process's event loop.
 *
 * SQLite's own busy handler (busy_timeout) sleeps synchronously, in steps growing from 1 to
 * 100 ms: the waiting harmonize worker can do nothing else meanwhile (its other jobs' mapping),
 * and it wakes up to 25 ms after the lock was released, which left the lock idle between two
 * workers' batches. Here the attempt is made with busy_timeout 0 and repeated every POLL_MS on
 * the event loop, for at most `timeoutMs` (SQLITE_BUSY_TIMEOUT_MS): then the last SQLITE_BUSY is
 * thrown, which the store reports as unavailable, as before. A failed attempt has rolled back
 * (better-sqlite3 does it for a throwing transaction), so trying again is safe.
 */
export function createWriteLockWaiter(db: Database.Database, timeoutMs: number) {
  const noWait = db.prepare('PRAGMA busy_timeout = 0');
  const wait = db.prepare(`PRAGMA busy_timeout = ${Math.trunc(timeoutMs)}`);
  const attempt = <T>(write: () => T): T => {
    noWait.get();
    try {
      return write();
    } finally {
      // Every other statement of this connection keeps the configured busy_timeout.
      wait.get();
    }
  };
  return async function whenWritable<T>(write: () => T): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      try {
        return attempt(write);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw err;
      }
      await sleep(POLL_MS);
    }
  };
}
