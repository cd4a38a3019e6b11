import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { deliveryBody } from '../delivery/fixtures.ts';
import { addConsumer } from '../helpers/app.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const DASHBOARD = `${ROOT}deploy/grafana/cvd-overview.json`;
const RULES = `${ROOT}deploy/prometheus/alerts.yml`;

/** Every series name /metrics can carry: each `# TYPE` line's name, with a histogram's and a summary's own series. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${name}${s}`);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(`${name}${s}`);
  }
  return names;
}

/**
 * The metric names a PromQL expression uses: what is left once label matchers, strings, range
 * selectors and `by (...)`-style label lists are gone, minus functions (a name followed by
 * `(`), keywords and numbers or durations.
 */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const keywords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);
  return [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!).filter((w) => !keywords.has(w.toLowerCase()));
}

/*
 * Monitoring that plugs into what operators run: a request-duration histogram per route on
 * /metrics, and a Grafana dashboard and Prometheus alert rules in deploy/ that only use metrics
 * the service exports. `promtool check rules` runs where Debian's prometheus package put it.
 */
describe('monitoring', () => {
  let t: TestApp;
  let exported: Set<string>;
  let scrape: string;
  beforeAll(async () => {
    t = await createTestApp();
    const c = await addConsumer(t, { dataItems: ['mileage'] });
    await t.app.inject({ method: 'GET', url: '/catalog/v1/data-items/mileage' });
    await t.app.inject({ method: 'GET', url: '/management/v1/vehicles/V1RTUALV1N0000001', headers: c.headers });
    await t.app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: c.headers, payload: deliveryBody(['V1RTUALV1N0000001'], ['mileage']) });
    await t.app.inject({ method: 'GET', url: '/no/such/page' });
    scrape = (await t.app.inject('/metrics')).body;
    exported = exportedNames(scrape);
  });
  afterAll(() => t.cleanup());

  it('times every request per route template, never per VIN, and "unmatched" for unknown URLs', () => {
    const series = (route: string) => scrape.split('\n').filter((l) => l.startsWith('cvd_http_request_duration_seconds_count{') && l.includes(`route="${route}"`));
    expect(series('/catalog/v1/data-items/:technicalName').some((l) => l.includes('method="GET"') && l.includes('status_class="2xx"'))).toBe(true);
    expect(series('/management/v1/vehicles/:vin').some((l) => l.includes('status_class="4xx"'))).toBe(true);
    expect(series('/delivery/v1/in-vehicle').some((l) => l.includes('method="POST"') && l.includes('status_class="2xx"'))).toBe(true);
    expect(series('unmatched').some((l) => l.includes('status_class="4xx"'))).toBe(true);
    expect(scrape).toMatch(/^cvd_http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/delivery\/v1\/in-vehicle",status_class="2xx"\} \d+$/m);
    expect(scrape).not.toContain('V1RTUALV1N0000001');
    expect(scrape).not.toContain('/no/such/page');
  });

  it('reports whether the store and Redis answer', () => {
    expect(scrape).toContain('cvd_dependency_up{dependency="store"} 1');
    expect(scrape).toContain('cvd_dependency_up{dependency="redis"} 1');
  });

  it('has a Grafana dashboard whose every query names metrics the service exports', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { uid: string; panels: { type: string; title: string; targets?: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((q) => ({ panel: p.title, expr: q.expr })));
    expect(queries.length).toBeGreaterThan(15);
    const problems: string[] = [];
    for (const q of queries) {
      const names = metricNamesIn(q.expr);
      if (names.length === 0) problems.push(`${q.panel}: no metric in ${q.expr}`);
      for (const n of names) if (!exported.has(n)) problems.push(`${q.panel}: ${n} is not exported`);
    }
    expect(problems).toEqual([]);
    // Every metric of the service's own shows up somewhere (default process metrics aside).
    const own = [...exported].filter((n) => !/_(bucket|sum|count)$/.test(n) && /^cvd_(?!process_|nodejs_)/.test(n));
    const used = new Set(queries.flatMap((q) => metricNamesIn(q.expr)).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    expect(own.filter((n) => !used.has(n))).toEqual([]);
  });

  it('has alert rules for a stalled ingest, a growing quarantine, queue depth, failing push, Redis or store down and a disabled webhook, on exported metrics', () => {
    const rules = readFileSync(RULES, 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\S+)\n\s+(?:#[^\n]*\n\s+)*expr: (.+)/g)].map((m) => ({ name: m[1]!, expr: m[2]! }));
    expect(alerts.map((a) => a.name)).toEqual(expect.arrayContaining(['CvdIngestStalled', 'CvdQuarantineGrowing', 'CvdQueueBacklog', 'CvdPushFailing', 'CvdRedisUnavailable', 'CvdStoreUnavailable', 'CvdWebhookDisabled']));
    const unknown = alerts.flatMap((a) => metricNamesIn(a.expr).filter((n) => n !== 'up' && !exported.has(n)).map((n) => `${a.name}: ${n}`));
    expect(unknown).toEqual([]);
  });

  // Debian's `prometheus` package ships promtool (apt-get install --no-install-recommends prometheus).
  const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => {
    try {
      readFileSync(p);
      return true;
    } catch {
      return false;
    }
  });
  it.skipIf(!promtool)('passes `promtool check rules` (skipped where promtool is not installed: Debian’s prometheus package provides it)', async () => {
    const { stdout } = await run(promtool!, ['check', 'rules', RULES]);
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });
});
