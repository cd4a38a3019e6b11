import type { AdapterRegistry } from './registry.ts';

/**
 * The registry a running process serves from, which a mapping reload replaces as a whole
 * (src/mapping-cases/reloader.ts). Every reader asks it per message or request (list, get,
 * forVin), so the next one sees the new adapters; a message already being harmonized finishes
 * with the adapter it started with, whose mapping version its points record.
 */
export interface ReloadableRegistry extends AdapterRegistry {
  /** The registry served now. */
  current(): AdapterRegistry;
  /** Serves `next` from now on. */
  replace(next: AdapterRegistry): void;
  /** Reads adapters/ and mappings/ from disk again under the same limits and engine; not yet served. */
  load(): Promise<AdapterRegistry>;
}

export function reloadableRegistry(
  initial: AdapterRegistry,
  source: { load: () => Promise<AdapterRegistry>; close?: () => Promise<void> },
): ReloadableRegistry {
  let served = initial;
  return {
    load: source.load,
    ...(source.close ? { close: source.close } : {}),
    list: () => served.list(),
    get: (id) => served.get(id),
    forVin: (vin) => served.forVin(vin),
    current: () => served,
    replace(next) {
      served = next;
    },
  };
}

/** Whether a process's registry can be reloaded (the composition root builds one that can; a test may pass a plain one). */
export const isReloadable = (registry: AdapterRegistry): registry is ReloadableRegistry => 'replace' in registry && typeof registry.replace === 'function';
