import type { Store } from './contract.ts';

/** The repository fields of a Store (everything but its own methods and the engine name). */
export type StoreRepos = Omit<Store, 'engine' | 'purgeErased' | 'ping' | 'close'>;

/**
 * Wraps every method of a repository so that an engine's failures are translated in one place:
 * `translate` turns outages into StoreUnavailableError (HTTP answers 503 with Retry-After,
 * workers retry with backoff) and passes every other error through unchanged.
 */
export function guardRepo<T extends object>(repo: T, translate: (err: unknown) => unknown): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(repo)) {
    guarded[name] =
      typeof method === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (method as (...a: unknown[]) => Promise<unknown>).apply(repo, args);
            } catch (err) {
              throw translate(err);
            }
          }
        : method;
  }
  return guarded as T;
}

/** Every repository of an engine's store, guarded with that engine's translation. */
export function guardRepos(repos: StoreRepos, translate: (err: unknown) => unknown): StoreRepos {
  const out: Record<string, object> = {};
  for (const [name, repo] of Object.entries(repos)) out[name] = guardRepo(repo as object, translate);
  return out as unknown as StoreRepos;
}
