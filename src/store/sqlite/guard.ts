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

/** Wraps every method of a repository so transient SQLite failures become StoreUnavailableError. */
export function guardSqliteRepo<T extends object>(repo: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(repo)) {
    guarded[name] =
      typeof method === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (method as (...a: unknown[]) => Promise<unknown>).apply(repo, args);
            } catch (err) {
              throw isTransientSqliteError(err) ? new StoreUnavailableError(err) : err;
            }
          }
        : method;
  }
  return guarded as T;
}
