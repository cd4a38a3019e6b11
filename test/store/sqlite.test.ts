import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe } from 'vitest';
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
