/**
 * Wraps every method of a repository so that an engine's failures are translated once, in one
 * place: each engine passes its own `translate` (outages → StoreUnavailableError, so callers
 * retry them with backoff; every other error passes through unchanged).
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
