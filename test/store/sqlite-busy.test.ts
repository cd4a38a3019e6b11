import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Store } from '../../src/store/contract.ts';
import type { StoreRepos } from '../../src/store/guard-store.ts';
import { tempSqliteStores } from './temp-sqlite.ts';

const AT = '2026-01-01T00:00:00.000Z';
const VIN = 'WVWZZZ1JZXW000001';

/**
 * One write per repository: each needs the write lock another connection holds. The reports
 * repository only reads (a WAL reader is never blocked by a writer), so it has none.
 */
const READ_ONLY = ['reports'];
const WRITES: { [K in Exclude<keyof StoreRepos, 'reports'>]: (store: Store) => Promise<unknown> } = {
  consumers: (s) => s.consumers.create({ consumerId: 'c-1', name: 'c', createdAt: AT }),
  subscriptions: (s) =>
    s.subscriptions.create({ subscriptionId: 's-1', consumerId: 'c-1', dataItems: [], allowedRedirectUrls: [], legalBasis: 'CONSENT', createdAt: AT }),
  vehicles: (s) => s.vehicles.deleteByVin(VIN),
  consents: (s) => s.consents.deleteByVin(VIN),
  dataPoints: (s) => s.dataPoints.deleteByVin(VIN),
  quarantine: (s) => s.quarantine.deleteByVin(VIN),
  webhooks: (s) => s.webhooks.delete('s-1'),
  deliveries: (s) => s.deliveries.deleteByVin(VIN),
  audit: (s) => s.audit.record({ type: 'test', at: AT, subject: 'x', details: {} }),
};

/**
 * Another process holding the SQLite write lock longer than busy_timeout (a backup tool, a
 * stuck process) is an outage, not a bug: every repository must report it as
 * StoreUnavailableError, which the HTTP layer answers 503 with Retry-After and workers retry
 * with backoff — never as a raw SQLITE_BUSY that would surface as a 500.
 */
describe('SQLite store: a held write lock', () => {
  const stores = tempSqliteStores('cvd-busy-');

  it('is StoreUnavailableError from every repository, and the store works again once it is released', async () => {
    const { file, store } = stores.open({ busyTimeoutMs: 20 });
    const repos = Object.keys(store).filter((k) => typeof (store as unknown as Record<string, unknown>)[k] === 'object' && !READ_ONLY.includes(k));
    expect(repos.sort()).toEqual(Object.keys(WRITES).sort());

    const holder = stores.holdWriteLock(file);
    for (const [repo, write] of Object.entries(WRITES)) {
      const error = await write(store).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error, repo).toBeInstanceOf(StoreUnavailableError);
    }

    holder.exec('ROLLBACK');
    for (const write of Object.values(WRITES)) await write(store);
    expect((await store.consumers.get('c-1'))?.name).toBe('c');
  });
});

/**
 * Harmonize workers in two processes take turns at the write lock. A batch waiting for it must
 * not stop its process (the other jobs' mapping, lock renewals, probes go on), and must be
 * stored as soon as the lock is free, or reported unavailable after busy_timeout as any write.
 */
describe('SQLite store: a data point batch waiting for the write lock', () => {
  const stores = tempSqliteStores('cvd-busy-wait-');
  const point = { vin: VIN, item: 'mileage', timestampMs: Date.parse(AT), payload: { value: 1, unit: 'km', timestamp: AT }, manufacturer: 'virtual', mappingVersion: 'v1', receivedAt: AT };

  it('leaves the event loop free while it waits, and is stored once the lock is released', async () => {
    const { file, store } = stores.open({ busyTimeoutMs: 5000 });
    const holder = stores.holdWriteLock(file);
    const write = store.dataPoints.insertMany([point]);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    await new Promise((r) => setTimeout(r, 200));
    clearInterval(ticker);
    // A synchronous busy wait would have held the event loop for the whole 200 ms.
    expect(ticks).toBeGreaterThan(10);
    holder.exec('ROLLBACK');
    expect(await write).toEqual([point]);
    expect(await store.dataPoints.latest([VIN], ['mileage'])).toEqual([point]);
  });

  it('is StoreUnavailableError once busy_timeout has passed, and nothing of it is stored', async () => {
    const { file, store } = stores.open({ busyTimeoutMs: 50 });
    const holder = stores.holdWriteLock(file);
    const started = performance.now();
    await expect(store.dataPoints.insertMany([point])).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    holder.exec('ROLLBACK');
    holder.close();
    expect(await store.dataPoints.count()).toBe(0);
    // Other writes of the connection still wait busy_timeout for the lock, as configured.
    const again = stores.holdWriteLock(file);
    const t0 = performance.now();
    await expect(store.dataPoints.deleteByVin(VIN)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);
    again.exec('ROLLBACK');
  });
});
