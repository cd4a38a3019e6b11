import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/open-store.ts';
import { freePort } from '../helpers/free-port.ts';

// `store migrate` on the engine that runs here (SQLite, a real file), and its MongoDB path as far
// as it goes without a server: an unreachable one is reported, not waited for.
describe('CLI: store migrate', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cvd-migrate-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function cli(env: Record<string, string>, ...argv: string[]) {
    let out = '';
    let err = '';
    const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), env: { DATA_DIR: dataDir, ...env } });
    return { code, out, err };
  }

  it('migrates a SQLite store (a new one, then again) and keeps what it holds', async () => {
    const first = await cli({}, 'store', 'migrate');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toEqual({ engine: 'sqlite', file: 'store.sqlite' });
    expect(first.err).toContain('at this release');
    const consumer = JSON.parse((await cli({}, 'consumers', 'create', '--name', 'Kept Co')).out) as { consumerId: string };
    expect((await cli({}, 'store', 'migrate')).code).toBe(0);
    const store = await openStore(loadConfig({ DATA_DIR: dataDir }));
    try {
      expect((await store.consumers.get(consumer.consumerId))?.name).toBe('Kept Co');
    } finally {
      await store.close();
    }
  });

  it('refuses --shard without MongoDB', async () => {
    const run = await cli({}, 'store', 'migrate', '--shard');
    expect(run.code).toBe(2);
    expect(run.err).toContain('--shard needs MONGO_URL');
  });

  it('reports an unreachable MongoDB as unavailable, exit 1', async () => {
    const port = await freePort();
    const run = await cli({ MONGO_URL: `mongodb://127.0.0.1:${port}/?directConnection=true` }, 'store', 'migrate');
    expect(run.code).toBe(1);
    expect(run.err).toContain('store unavailable');
  }, 20_000);
});
