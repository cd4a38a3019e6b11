import { StoreUnavailableError } from '../contract/errors.ts';
import { guardRepo } from '../guard-repo.ts';

/**
 * SQLite result codes that mean "not now" rather than "never": another process held the write
 * lock longer than busy_timeout, or the disk failed or filled up. Callers retry these with
 * backoff, exactly as they retry a MongoDB outage.
 */
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN)/;

export function isTransientSqliteError(err: unknown): boolean {
  return err instanceof Error && TRANSIENT.test(String((err as Error & { code?: unknown }).code));
}

/** Wraps every method of a repository so transient SQLite failures become StoreUnavailableError. */
export function guardSqliteRepo<T extends object>(repo: T): T {
  return guardRepo(repo, (err) => (isTransientSqliteError(err) ? new StoreUnavailableError(err) : err));
}
