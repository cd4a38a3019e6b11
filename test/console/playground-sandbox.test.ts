import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/mapping/compile.ts';
import { createMappingSandbox } from '../../src/mapping-cases/sandbox.ts';
import type { DryRunResult } from '../../src/pipeline/dry-run.ts';
import { defaultPaths } from '../../src/paths.ts';
import { createTestApp } from '../helpers/app.ts';
import { signIn } from './session.ts';

/*
 * The playground runs whatever a signed-in operator types. It used to run in the process that
 * serves the API, the broker, the pipeline and push: `$sort` over 90,000 integers killed the
 * process, a backtracking regular expression blocked it for 89 s. Now each run is made in the
 * mapping sandbox, a worker thread with a heap of its own, terminated at the run's deadline
 * (MAPPING_TIMEOUT_MS plus a second): the answer is MAPPING_LIMIT, and /health answers meanwhile.
 */
const TIMEOUT_MS = 300;
const t = await createTestApp({ env: { MAPPING_TIMEOUT_MS: String(TIMEOUT_MS), MAPPING_SANDBOX_MEMORY_MB: '128' } });
const session = await signIn(t.app);
const telemetry = readFileSync(t.services.adapters.get('virtual')!.mappings.get('telemetry')!.file, 'utf8');
const fixture = readFileSync(`${t.services.adapters.get('virtual')!.dir}/fixtures/virtual.telemetry.electric.json`, 'utf8');
afterAll(() => t.cleanup());

async function run(mapping: string, raw: string): Promise<{ status: number; body: DryRunResult & { compileError?: string }; ms: number }> {
  const started = performance.now();
  const res = await t.app.inject({
    method: 'POST',
    url: '/console/playground/run.json',
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    payload: { manufacturer: 'virtual', messageType: 'telemetry', mapping, raw },
  });
  return { status: res.statusCode, body: res.json(), ms: performance.now() - started };
}

/** /health's answer times while `during` runs, every 20 ms. */
async function healthWhile<T>(during: Promise<T>): Promise<{ result: T; worstMs: number; answers: number }> {
  let done = false;
  let worstMs = 0;
  let answers = 0;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await t.app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(200);
      worstMs = Math.max(worstMs, performance.now() - started);
      answers++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const result = await during;
  done = true;
  await probe;
  return { result, worstMs, answers };
}

describe('the playground runs in the mapping sandbox', () => {
  it('warms up: a normal run maps the fixture', async () => {
    const r = await run(telemetry, fixture);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, failure: null });
  }, 120_000);

  it.each([
    ['$sort over 90,000 integers', '$sort(a)', JSON.stringify({ a: Array.from({ length: 90_000 }, (_, i) => (i * 7919) % 90_000) })],
    ['a backtracking regular expression', '$match(s, /(a+)+$/)', JSON.stringify({ s: `${'a'.repeat(30)}!` })],
    ['four nested paths over 400 items (compiled)', '$count(a.($count($$.a.($count($$.a.($count($$.a)))))))', JSON.stringify({ a: Array.from({ length: 400 }, (_, i) => i) })],
  ])('%s: stopped at the deadline and answered MAPPING_LIMIT, while /health answers', async (_name, mapping, raw) => {
    // A stopped run ends its thread; the next run starts a new one, which on a busy host takes
    // seconds. Started first, so what is timed is the run and its deadline.
    expect((await run(telemetry, fixture)).body).toMatchObject({ valid: true });
    const { result: r, worstMs, answers } = await healthWhile(run(mapping, raw));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: false, items: [], failure: { code: 'MAPPING_LIMIT' } });
    expect(r.body.mappingVersion).toMatch(/^telemetry\.jsonata@/);
    // The deadline is MAPPING_TIMEOUT_MS + 1 s; the rest is the machine's slack.
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 1000 + 3000);
    expect(answers).toBeGreaterThan(3);
    expect(worstMs).toBeLessThan(TIMEOUT_MS + 100);
  }, 60_000);

  it('runs normally again after a stopped run (a new thread)', async () => {
    const r = await run(telemetry, fixture);
    expect(r.body).toMatchObject({ valid: true, failure: null });
  }, 120_000);

  it('reports a mapping that does not compile, naming the file as the page does', async () => {
    const r = await run('{ "vin": ', fixture);
    expect(r.body.compileError).toMatch(/^mapping mappings\/virtual\/telemetry\.jsonata does not compile/);
  });
});

describe('the mapping sandbox', () => {
  const sandbox = createMappingSandbox({
    catalogDir: defaultPaths().catalog,
    limits: { ...DEFAULT_LIMITS, timeoutMs: 60_000 },
    engine: { compiler: true },
    memoryMb: 64,
  });
  afterAll(() => sandbox.close());

  it('stops a run over its heap (MAPPING_SANDBOX_MEMORY_MB) before the time limit, and answers MAPPING_LIMIT', async () => {
    const adapter = t.services.adapters.get('virtual')!;
    // 5,000 lists of 5,000 numbers held at once: 200 MB and more, over the 64 MB heap.
    const hog = '$count($map([1..5000], function($i) { [1..5000] }))';
    const started = performance.now();
    const r = await sandbox.dryRun(adapter, 'telemetry', '{}', '2026-11-25T12:00:00.000Z', { messageType: 'telemetry', source: hog });
    expect(r).toMatchObject({ valid: false, failure: { code: 'MAPPING_LIMIT', reason: expect.stringMatching(/more than 64 MB/) } });
    expect(performance.now() - started).toBeLessThan(60_000);
  }, 120_000);
});
