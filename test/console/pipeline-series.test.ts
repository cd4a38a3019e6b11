import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { readPipelineSeries, type PipelineSeries } from '../../src/console/series.ts';
import { fleetFreshness } from '../../src/main/fleet-freshness.ts';
import { metrics } from '../../src/metrics/metrics.ts';
import { startServiceSampler } from '../../src/main/sampler.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { createTestApp } from '../helpers/app.ts';
import { signIn } from './session.ts';

const clock = new ManualClock('2026-05-05T10:00:30.000Z');
const t = await createTestApp({ clock });
const chart = (s: PipelineSeries, id: string) => s.charts.find((c) => c.id === id)!;
const point = (vin: string, receivedAt: string): DataPoint => ({ vin, item: 'mileage', timestampMs: Date.parse(receivedAt), payload: { value: 1, unit: 'km', timestamp: receivedAt }, manufacturer: 'virtual', mappingVersion: 'm@1', receivedAt });

/** The pipeline charts over a chosen range, with end-to-end latency, push success and the fleet's freshness. */
describe('pipeline charts over 1 h to 7 days', () => {
  afterAll(async () => t.cleanup());

  it('keeps every range in its own resolution, and charts latency, push success and freshness', async () => {
    // Vehicles last seen 1 minute, 30 minutes and 2 days before 10:00:30.
    await t.services.store.dataPoints.insertMany([point('V1RTUALV1N0000001', '2026-05-05T09:59:30.000Z'), point('V1RTUALV1N0000002', '2026-05-05T09:30:00.000Z'), point('V1RTUALV1N0000003', '2026-05-03T10:00:00.000Z')]);
    const sampler = startServiceSampler(t.services, { gauges: t.services.gauges, freshness: () => fleetFreshness(t.services), intervalMs: 3_600_000 });
    try {
      await sampler.flush(); // the baseline
      for (const s of [0.2, 0.2, 0.2, 2]) metrics.ingestToStored.observe({ manufacturer: 'virtual' }, s);
      metrics.pushOutcomes.inc({ outcome: 'delivered' }, 3);
      metrics.pushOutcomes.inc({ outcome: 'retrying' }, 1);
      metrics.ingestMessages.inc({ manufacturer: 'virtual', transport: 'mqtt' }, 5);
      await sampler.flush();

      const hour = await readPipelineSeries(t.services, '1h');
      expect(hour).toMatchObject({ range: '1h', stepS: 60 });
      expect(hour.minutes).toHaveLength(60);
      const latency = chart(hour, 'latency');
      expect(latency.series).toEqual(['mean', 'p95']);
      expect(latency.values[0]!.at(-1)).toBeCloseTo(0.65, 3);
      const p95 = latency.values[1]!.at(-1)!;
      expect(p95).toBeGreaterThan(1);
      expect(p95).toBeLessThanOrEqual(2.5);
      expect(latency.values[0]!.at(-2)).toBeNull(); // a minute without a message: no latency, not 0
      expect(chart(hour, 'push-success')).toMatchObject({ unit: '%', yRange: [0, 100] });
      expect(chart(hour, 'push-success').values[0]!.at(-1)).toBe(75);
      const fresh = chart(hour, 'freshness');
      expect(Object.fromEntries(fresh.series.map((name, i) => [name, fresh.values[i]!.at(-1)]))).toEqual({ 'within 5 min': 1, '5 min to 1 h': 1, '1 h to 24 h': 0, 'longer ago': 1 });

      // Three hours on: the hour shows none of it; 6 h shows it in its 5-minute bucket, 7 days in its hour.
      clock.set('2026-05-05T13:00:30.000Z');
      expect(chart(await readPipelineSeries(t.services, '1h'), 'messages-in').values.flat().reduce<number>((a, v) => a + (v ?? 0), 0)).toBe(0);
      const six = await readPipelineSeries(t.services, '6h');
      expect(six).toMatchObject({ range: '6h', stepS: 300 });
      expect(six.minutes).toHaveLength(72);
      const at = six.minutes.indexOf(Date.parse('2026-05-05T10:00:00Z') / 1000);
      expect(chart(six, 'messages-in').values[0]![at]).toBe(5);
      expect(chart(six, 'messages-in').title).toContain('per 5 minutes');
      const week = await readPipelineSeries(t.services, '7d');
      expect(week).toMatchObject({ stepS: 3600 });
      expect(week.minutes).toHaveLength(168);
      expect(chart(week, 'messages-in').values[0]![week.minutes.indexOf(Date.parse('2026-05-05T10:00:00Z') / 1000)]).toBe(5);
      expect(chart(week, 'push-success').values[0]!.filter((v) => v !== null)).toEqual([75]);
    } finally {
      await sampler.close();
    }

    // The page offers the ranges; the data call answers the one asked for.
    const s = await signIn(t.app);
    const page = await t.app.inject({ method: 'GET', url: '/console/pipeline?range=24h', headers: { cookie: s.cookie } });
    expect(page.body).toContain('<a href="/console/pipeline?range=24h" data-range="24h" aria-current="true">24 h</a>');
    expect(page.body).toContain('data-src="/console/pipeline/series.json?range=24h"');
    const json = await t.app.inject({ method: 'GET', url: '/console/pipeline/series.json?range=24h', headers: { cookie: s.cookie } });
    expect(json.json()).toMatchObject({ range: '24h', stepS: 900 });
  });
});
