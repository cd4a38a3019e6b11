import { StoreUnavailableError } from '../contract/errors.ts';

/**
 * SQLite result codes that mean "not now" rather than "never": another process held the write
 * lock longer than busy_timeout, or the disk failed or filled up. Callers retry these with
 * backoff, exactly as they retry a MongoDB outage.
 */
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN)/;

export function isTransientSqliteError(err: unknown): boolean {
  return err instanceof Error && TRANSIENT.test(String((err as Error & { code?: unknown }).code));
}

/** The SQLite engine's error translation for the store's repository guard (src/store/guard-store.ts). */
export function toSqliteStoreError(err: unknown): unknown {
  return isTransientSqliteError(err) ? new StoreUnavailableError(err) : err;
}
