import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { startServiceSampler } from '../../src/main/sampler.ts';
import { readPipelineSeries } from '../../src/console/series.ts';
import { metrics } from '../../src/metrics/metrics.ts';
import { closeServices, createServices } from '../../src/main/create-services.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { signIn, type ConsoleSignIn } from './session.ts';

const vin = (n: number) => `V1RTUALV1N${String(n).padStart(7, '0')}`;

describe('console views over the real app', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });
  const get = (s: ConsoleSignIn, url: string) => t!.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });

  it('pages through the fleet 50 vehicles at a time, across subscriptions, and searches by VIN', async () => {
    t = await createTestApp();
    const at = t.services.clock.now().toISOString();
    for (let n = 1; n <= 120; n++) {
      await t.services.store.vehicles.upsert({ subscriptionId: n % 2 ? 's-1' : 's-2', vin: vin(n), manufacturer: 'virtual', status: 'ACTIVATED', createdAt: at, updatedAt: at });
    }
    const s = await signIn(t.app);
    const rows = (body: string) => [...body.matchAll(/<tr data-vin="([^"]+)">/g)].map((m) => m[1]);
    const first = await get(s, '/console/fleet');
    expect(rows(first.body)).toEqual(Array.from({ length: 50 }, (_, i) => vin(i + 1)));
    const next = /href="(\/console\/fleet\?after=[^"]+)" rel="next"/.exec(first.body)![1]!;
    const second = await get(s, next);
    expect(rows(second.body)[0]).toBe(vin(51));
    const third = await get(s, /href="(\/console\/fleet\?after=[^"]+)" rel="next"/.exec(second.body)![1]!);
    expect(rows(third.body)).toHaveLength(20);
    expect(third.body).not.toContain('rel="next"');
    // Lower case is taken as the VIN it means.
    expect(rows((await get(s, '/console/fleet?vin=v1rtualv1n000011')).body)).toEqual([110, 111, 112, 113, 114, 115, 116, 117, 118, 119].map(vin));
    expect((await get(s, '/console/fleet?vin=IOQ')).body).toContain('A VIN has up to 17');
  });

  it('runs the edited mapping under the dry run limits: a runaway mapping is MAPPING_LIMIT, not a hung request', async () => {
    t = await createTestApp({ env: { MAPPING_TIMEOUT_MS: '50' } });
    const s = await signIn(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/playground/run.json',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
      payload: { manufacturer: 'virtual', messageType: 'telemetry', mapping: '($f := function($n) { $f($n + 1) }; $f(0))', raw: '{"vin":"V1RTUALV1N0000001"}' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ valid: false, failure: { code: 'MAPPING_LIMIT' } });
  });

  it('charts what each process counted, the same for every API process, with the shared gauges', async () => {
    const clock = new ManualClock('2026-05-05T10:00:30.000Z');
    t = await createTestApp({ clock });
    const sampler = startServiceSampler(t.services, { gauges: t.services.gauges, intervalMs: 3_600_000 });
    // A second API process on the same Redis and prefix.
    const other = await createServices(t.services.config, t.services.logger, t.services.redisUrl, { clock });
    try {
      await sampler.flush(); // the baseline: what was counted before the sampler started is not charted
      metrics.ingestMessages.inc({ manufacturer: 'virtual', transport: 'mqtt' }, 7);
      metrics.dataPointsStored.inc({ manufacturer: 'virtual' }, 40);
      await sampler.flush();
      clock.set('2026-05-05T10:01:10.000Z');
      metrics.ingestMessages.inc({ manufacturer: 'virtual', transport: 'mqtt' }, 3);
      await sampler.flush();
      const mine = await readPipelineSeries(t.services);
      const theirs = await readPipelineSeries(other);
      expect(theirs).toEqual(mine);
      const chart = (id: string) => mine.charts.find((c) => c.id === id)!;
      const messages = chart('messages-in');
      expect(messages.series).toEqual(['virtual mqtt']);
      expect(messages.values[0]!.slice(-2)).toEqual([7, 3]);
      expect(mine.minutes.slice(-2)).toEqual([Date.parse('2026-05-05T10:00:00Z') / 1000, Date.parse('2026-05-05T10:01:00Z') / 1000]);
      expect(chart('items-stored').values[0]!.slice(-2)).toEqual([40, 0]);
      // Gauges: quarantine size sampled each flush; a minute never sampled is a gap, not 0.
      expect(chart('quarantine').values[0]!.slice(-3)).toEqual([null, 0, 0]);
      expect(chart('queues').series).toEqual(expect.arrayContaining(['harmonize', 'push-deliveries']));
    } finally {
      await sampler.close();
      await closeServices(other);
    }
  });
});
