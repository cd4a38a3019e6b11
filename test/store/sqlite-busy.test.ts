import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Store } from '../../src/store/contract.ts';
import type { StoreRepos } from '../../src/store/guard-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';

const AT = '2026-01-01T00:00:00.000Z';
const VIN = 'WVWZZZ1JZXW000001';

/**
 * One write per repository: each needs the write lock another connection holds. The console's
 * repository only reads (a WAL reader is never blocked by a writer), so it has none.
 */
const READ_ONLY = ['console'];
const WRITES: { [K in Exclude<keyof StoreRepos, 'console'>]: (store: Store) => Promise<unknown> } = {
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
  let dir: string | undefined;
  let store: Store | undefined;
  let holder: Database.Database | undefined;
  afterEach(async () => {
    if (holder?.inTransaction) holder.exec('ROLLBACK');
    holder?.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = store = holder = undefined;
  });

  it('is StoreUnavailableError from every repository, and the store works again once it is released', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-busy-'));
    const file = join(dir, 'store.sqlite');
    store = openSqliteStore(file, { busyTimeoutMs: 20 });
    const repos = Object.keys(store).filter((k) => typeof (store as unknown as Record<string, unknown>)[k] === 'object' && !READ_ONLY.includes(k));
    expect(repos.sort()).toEqual(Object.keys(WRITES).sort());

    holder = new Database(file);
    holder.exec('BEGIN EXCLUSIVE');
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
