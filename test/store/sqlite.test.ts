import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/contract.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import type { UniqueIndex } from './conformance/types.ts';
import { runConformance } from './run-conformance.ts';

function listSqliteUniqueIndexes(db: Database.Database): UniqueIndex[] {
  const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
  return tables.flatMap(({ name: table }) =>
    db
      .prepare<[], { name: string; unique: number }>(`PRAGMA index_list("${table}")`)
      .all()
      .filter((index) => index.unique === 1)
      .map((index) => ({
        table,
        fields: db
          .prepare<[], { seqno: number; name: string }>(`PRAGMA index_info("${index.name}")`)
          .all()
          .sort((a, b) => a.seqno - b.seqno)
          .map((column) => column.name),
      })),
  );
}

describe('store conformance: SQLite', () => {
  runConformance(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvd-store-'));
    const file = join(dir, 'store.sqlite');
    const store = openSqliteStore(file);
    const peers: Store[] = [];
    return {
      store,
      async openPeer() {
        const peer = openSqliteStore(file);
        peers.push(peer);
        return peer;
      },
      async uniqueIndexes() {
        const db = new Database(file, { readonly: true });
        try {
          return listSqliteUniqueIndexes(db);
        } finally {
          db.close();
        }
      },
      async cleanup() {
        for (const peer of peers) await peer.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

describe('SQLite webhooks table from before notices became opt-in', () => {
  it('gets the notices column on open; its webhooks read as opted out, and a put stores notices', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvd-store-'));
    const file = join(dir, 'store.sqlite');
    try {
      const old = new Database(file);
      old.exec(`CREATE TABLE webhooks (subscription_id TEXT NOT NULL PRIMARY KEY, url TEXT NOT NULL, secrets TEXT NOT NULL,
        authorization_sealed TEXT, items TEXT NOT NULL, min_interval_seconds INTEGER NOT NULL, status TEXT NOT NULL,
        disabled_reason TEXT, failing_since TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
      old.prepare(`INSERT INTO webhooks VALUES ('sub-1', 'https://hooks.example.com/in', '[]', NULL, '[]', 60, 'ENABLED', NULL, NULL, 'T0', 'T0')`).run();
      old.close();
      const store = openSqliteStore(file);
      try {
        const before = await store.webhooks.get('sub-1');
        expect(before).toMatchObject({ subscriptionId: 'sub-1', url: 'https://hooks.example.com/in', notices: [] });
        await store.webhooks.put({ ...before!, notices: ['vehicle.data_erased'] });
        expect((await store.webhooks.get('sub-1'))?.notices).toEqual(['vehicle.data_erased']);
      } finally {
        await store.close();
      }
      // Opening again finds the column there and leaves it.
      const again = openSqliteStore(file);
      expect((await again.webhooks.get('sub-1'))?.notices).toEqual(['vehicle.data_erased']);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
