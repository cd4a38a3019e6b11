import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../ops/service-process.ts';

const run = promisify(execFile);

/**
 * The test files whose subject is "every manufacturer": they read the adapters and mappings
 * folders (manifests, fixtures, cases, the coverage table, the catalog's manufacturer list) or
 * assume which manufacturers exist. A correct new manufacturer must leave each of them green.
 */
export const MANUFACTURER_DEPENDENT_TESTS = [
  'test/adapters/fixtures.test.ts',
  'test/adapters/registry.test.ts',
  'test/adapters/conflicts.test.ts',
  'test/mapping/cases.test.ts',
  'test/mapping/coverage.test.ts',
  'test/mapping/to-js/real-mappings.test.ts',
  'test/mapping/to-js/mutated-messages.test.ts',
  'test/catalog/api.test.ts',
  'test/catalog/manufacturers.test.ts',
  'test/cli/scaffold.test.ts',
  'test/pipeline/vin-check.test.ts',
  'test/pipeline/data-minimisation.test.ts',
  'test/pipeline/deep-nesting.test.ts',
  'test/pipeline/future-time.test.ts',
  'test/pipeline/dry-run.test.ts',
  'test/delivery/capabilities.test.ts',
  'test/openapi/document.test.ts',
  'test/openapi/examples.test.ts',
  'test/security/authz-matrix.test.ts',
];

/** What is copied: the project as a clone has it, without installed or generated folders. */
const SKIP = new Set(['node_modules', '.git', 'data', 'dist', 'coverage', 'test-results', '.tmp', '.ci-results']);

/*
 * "Adding a manufacturer touches only its two folders": in a copy of the project, scaffold one
 * with the CLI as docs/adding-a-manufacturer.md says (`manufacturers new`), touch nothing else,
 * and run every manufacturer-dependent test file of the suite there. The inner run shares this
 * run's Redis (each test keeps to its own key prefix) and takes its ports from this worker's block.
 */
describe.skipIf(process.env.CVD_INNER_SUITE === '1')('a correct new manufacturer', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-new-manufacturer-'));
    cpSync(ROOT, dir, {
      recursive: true,
      filter: (src) => {
        const rel = relative(ROOT, src).split('/');
        return !SKIP.has(rel[0]!) && !(rel[0] === 'clients' && rel.includes('node_modules'));
      },
    });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves every manufacturer-dependent test file green, with nothing changed outside its two folders', async () => {
    for (const file of MANUFACTURER_DEPENDENT_TESTS) expect(existsSync(join(ROOT, file)), file).toBe(true);
    const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const env = { ...process.env, DATA_DIR: join(dir, 'data') };
    const made = await run(process.execPath, [tsx, 'src/cli/main.ts', 'manufacturers', 'new', 'zephyr', '--transport', 'http'], { cwd: dir, env });
    expect(JSON.parse(made.stdout).files.every((f: string) => f.startsWith('adapters/zephyr/') || f.startsWith('mappings/zephyr/'))).toBe(true);

    // This worker's port block, split again among the inner run's workers.
    const base = Number(process.env.TEST_PORT_BASE ?? 20_000);
    const block = Math.floor(Number(process.env.TEST_PORT_SPAN ?? 12_000) / 12);
    const pool = Math.max(1, Number(process.env.VITEST_POOL_ID ?? 1));
    const innerEnv = {
      ...process.env,
      CVD_INNER_SUITE: '1',
      REDIS_URL: inject('redisUrl'),
      TEST_PORT_BASE: String(base + ((pool - 1) % 12) * block),
      TEST_PORT_SPAN: String(block),
    };
    delete (innerEnv as Record<string, string | undefined>).VITEST_POOL_ID;
    delete (innerEnv as Record<string, string | undefined>).VITEST_WORKER_ID;
    const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const report = join(dir, 'inner-report.json');
    const args = [vitest, 'run', ...MANUFACTURER_DEPENDENT_TESTS, '--reporter=json', `--outputFile=${report}`, '--reporter=dot'];
    const outcome = await run(process.execPath, args, { cwd: dir, env: innerEnv, maxBuffer: 64 * 1024 * 1024 }).then(
      () => 'passed',
      (err: { stdout?: string; stderr?: string }) => `${err.stdout?.slice(-4000) ?? ''}\n${err.stderr?.slice(-4000) ?? ''}`,
    );
    const results = JSON.parse(readFileSync(report, 'utf8')) as {
      numFailedTests: number;
      numPassedTests: number;
      testResults: { name: string; status: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
    };
    const failed = results.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'failed').map((a) => `${relative(dir, f.name)}: ${a.fullName}: ${a.failureMessages[0]?.slice(0, 400)}`));
    expect(failed, outcome).toEqual([]);
    expect(results.testResults.map((f) => relative(dir, f.name)).sort()).toEqual([...MANUFACTURER_DEPENDENT_TESTS].sort());
    expect(results.numPassedTests).toBeGreaterThan(100);
    expect(outcome).toBe('passed');
  }, 600_000);
});
