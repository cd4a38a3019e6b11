import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { runConformance } from './run-conformance.ts';

describe('store conformance: SQLite', () => {
  runConformance(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvd-store-'));
    const store = openSqliteStore(join(dir, 'store.sqlite'));
    return {
      store,
      async cleanup() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
