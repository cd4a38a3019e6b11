import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { deployment, type Deployment } from '../ops/service-env.ts';
import { startService, waitForHttp, type ServiceProcess } from '../ops/service-process.ts';

/*
 * Generated mappings sent to the console's playground of a whole service process (API, broker,
 * pipeline and push in one, as the try-out runs): nested paths over long lists, `$sort` (whose
 * merge once used memory quadratic in the list's length and killed the process), backtracking
 * regular expressions (`$match` blocked for 89 s), in both engines' subsets, on messages with
 * lists of up to 90,000 items. Meanwhile a second client calls /health every 25 ms.
 *
 * Promise measured: /health never waits longer than MAPPING_TIMEOUT_MS + 100 ms, every run is
 * answered, and the process never dies (docs/security.md, "Mapping runs").
 */
const TIMEOUT_MS = 300;
const ADMIN = 'ops-admin-token-0001';
const RUNS = Number(process.env.FUZZ_PLAYGROUND_RUNS ?? 24);

const cookiesOf = (res: Response): string[] => res.headers.getSetCookie().map((c) => c.split(';')[0]!).filter((c) => !c.endsWith('='));

/** Sign-in as a browser does; the session cookie and the CSRF token of the pages. */
async function signIn(origin: string): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${origin}/console/sign-in`);
  const token = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await fetch(`${origin}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookiesOf(form).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: token, token: ADMIN }).toString(),
  });
  expect(res.status).toBe(303);
  const cookie = cookiesOf(res).filter((c) => c.startsWith('cvd_console=')).join('; ');
  const page = await fetch(`${origin}/console/playground`, { headers: { cookie } });
  const csrf = /<meta name="csrf" content="([^"]+)">/.exec(await page.text())![1]!;
  return { cookie, csrf };
}

/** A list of `n` integers in no order, and a string that makes a nested quantifier backtrack. */
const input = fc.record({
  n: fc.constantFrom(10, 400, 400, 5_000, 90_000, 90_000),
  s: fc.integer({ min: 5, max: 32 }).map((k) => `${'a'.repeat(k)}!`),
});

const leaf = fc.constantFrom('a', 'b', 's', 'vin', '$count(a)', '$sum(a)', '1');
/** Mappings: the heavy constructs, nested and combined, in constructors as mappings write them. */
const mapping: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 1, arbitrary: leaf },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 4 }).map((depth) => {
      let e = '$count($$.a)';
      for (let i = 1; i < depth; i++) e = `$count($$.a.(${e}))`;
      return `$count(a.(${e}))`;
    }) },
    { weight: 2, arbitrary: fc.constantFrom('$sort(a)', '$sort(a, function($x, $y) { $x < $y })', 'a^($)', '$reverse($sort(a))[0]') },
    { weight: 2, arbitrary: fc.constantFrom('$match(s, /(a+)+$/)', '$match(s, /^(a|aa)+$/)', '$replace(s, /(a*)*b/, "x")', '$contains(s, /(a|a)*c/)', '$split(s, /(a+)+x/)') },
    { weight: 1, arbitrary: fc.tuple(tie('e'), tie('e')).map(([x, y]) => `{ "vin": vin, "items": { "x": ${x}, "y": ${y} } }`) },
    { weight: 1, arbitrary: fc.tuple(tie('e'), tie('e')).map(([x, y]) => `[${x}, ${y}]`) },
    { weight: 1, arbitrary: fc.tuple(tie('e'), tie('e')).map(([x, y]) => `(${x}) ? (${y})`) },
    { weight: 1, arbitrary: tie('e').map((x) => `a.(${x})`) },
    { weight: 1, arbitrary: tie('e').map((x) => `$string(${x})`) },
  ),
})).e;

describe('the playground under generated heavy mappings, with /health called meanwhile', () => {
  let d: Deployment;
  let service: ServiceProcess;
  let origin: string;
  let died = false;

  beforeAll(async () => {
    d = deployment(inject('redisUrl'), { MAPPING_TIMEOUT_MS: String(TIMEOUT_MS), MAPPING_SANDBOX_MEMORY_MB: '128', RATE_LIMIT_AUTH_FAILURE_MAX: '1000' });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    service = startService('playground-fuzz', { env: d.env({ PORT: String(port) }) });
    void service.exited.then(() => (died = true));
    await waitForHttp(`${origin}/ready`, 200, 60_000, service);
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
    d?.cleanup();
  });

  it('answers every run; /health never waits longer than MAPPING_TIMEOUT_MS + 100 ms; the process lives', async () => {
    const session = await signIn(origin);
    const runOne = async (source: string, raw: string) => {
      const res = await fetch(`${origin}/console/playground/run.json`, {
        method: 'POST',
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ manufacturer: 'virtual', messageType: 'telemetry', mapping: source, raw }),
      });
      return { status: res.status, body: (await res.json()) as { compileError?: string; failure?: { code: string } | null } };
    };
    // The sandbox thread's first start (loading its modules) is not what is measured.
    expect((await runOne('{ "vin": vin, "items": {} }', '{"vin": "V1RTUALV1N0000001"}')).status).toBe(200);

    const health: number[] = [];
    let stop = false;
    const prober = (async () => {
      while (!stop) {
        const started = performance.now();
        const res = await fetch(`${origin}/health`);
        await res.arrayBuffer();
        expect(res.status).toBe(200);
        health.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    const outcomes: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(mapping, input, async (source, { n, s }) => {
          const raw = JSON.stringify({ vin: 'V1RTUALV1N0000001', a: Array.from({ length: n }, (_, i) => (i * 7919) % n), b: { c: 1 }, s });
          const r = await runOne(source, raw);
          expect(r.status, source).toBe(200);
          outcomes.push(r.body.compileError !== undefined ? 'compile error' : (r.body.failure?.code ?? 'mapped'));
          expect(died, source).toBe(false);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    } finally {
      stop = true;
      await prober;
    }
    expect(died).toBe(false);
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    // The generated runs did stop at limits (else the property proved little).
    expect(outcomes.filter((o) => o === 'MAPPING_LIMIT').length, outcomes.join(', ')).toBeGreaterThan(0);
    expect(health.length).toBeGreaterThan(RUNS);
    const worst = Math.max(...health);
    console.log(`playground fuzz: ${RUNS} runs (${outcomes.join(', ')}); /health ${health.length} calls, worst ${worst.toFixed(0)} ms`);
    expect(worst).toBeLessThan(TIMEOUT_MS + 100);
  }, 300_000);
});
