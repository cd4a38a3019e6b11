/**
 * Placeholder for a repository whose engine code is not written yet: any call fails loudly.
 * Remove a use as soon as the real repository exists.
 */
export function notImplemented<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      if (prop === 'then') return undefined;
      return () => Promise.reject(new Error(`${what}.${String(prop)} is not implemented yet`));
    },
  });
}
