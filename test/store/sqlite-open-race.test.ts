import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./fixtures/sqlite-open-worker.ts', import.meta.url));
const PROCESSES = 4;
const ROUNDS = 3;

/*
 * The processes of an installation often start together (a deployment, a test of several
 * roles) on a store file nobody has opened yet. Creating the tables and adding the columns of
 * newer versions must then succeed in every one of them: each looks at the schema and changes
 * it under the write lock, or all but one find the column they were about to add already there.
 */
describe('SQLite store: processes opening a new store at once', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('opens in every process, round after round', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'cvd-open-race-'));
      dirs.push(dir);
      // After every process has booted (tsx takes a while on a loaded machine).
      const startAt = Date.now() + 5000;
      const outcomes = await Promise.allSettled(
        Array.from({ length: PROCESSES }, () => run(process.execPath, ['--import', 'tsx', WORKER, join(dir, 'store.sqlite'), String(startAt)], { timeout: 60_000 })),
      );
      const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as { stderr?: string }).stderr ?? o.reason).split('\n').find((l) => /Error/.test(l)) ?? 'failed'] : []));
      expect(failed, `round ${round}`).toEqual([]);
    }
  }, 120_000);
});
