import type { PushContext } from '../context.ts';

/** Which webhooks watch a pull item, and their minimum interval. */
export interface Watcher {
  subscriptionId: string;
  /** Absent: the default endpoint. */
  endpointId?: string;
  minIntervalSeconds: number;
}

export interface WatchList {
  /** item → the webhooks that asked for its updates. Cached for PUSH_WATCH_CACHE_MS. */
  current(): Promise<ReadonlyMap<string, readonly Watcher[]>>;
}

/**
 * The pipeline hands over every point of every batch (30,000 a second at full load), nearly
 * all of them pull items that no webhook watches. Reading the watch list from the store once
 * per PUSH_WATCH_CACHE_MS, not once per batch, keeps that cheap; a webhook registered or
 * changed meanwhile takes effect within that time. Wall-clock time on purpose: this is a
 * cache, not service time, and must move even under a test's ManualClock.
 */
export function createWatchList(services: Pick<PushContext, 'config' | 'store'>): WatchList {
  const ttl = services.config.PUSH_WATCH_CACHE_MS;
  let value: Map<string, Watcher[]> | null = null;
  let loadedAt = 0;
  let loading: Promise<Map<string, Watcher[]>> | null = null;

  async function load(): Promise<Map<string, Watcher[]>> {
    const map = new Map<string, Watcher[]>();
    for (const w of await services.store.webhooks.listWatching()) {
      for (const item of w.items) {
        const list = map.get(item) ?? [];
        list.push({ subscriptionId: w.subscriptionId, ...(w.endpointId ? { endpointId: w.endpointId } : {}), minIntervalSeconds: w.minIntervalSeconds });
        map.set(item, list);
      }
    }
    return map;
  }

  return {
    async current() {
      if (value && performance.now() - loadedAt < ttl) return value;
      // One load at a time: concurrent batches share it instead of each reading the store.
      loading ??= load().finally(() => (loading = null));
      const started = performance.now();
      value = await loading;
      loadedAt = started;
      return value;
    },
  };
}
