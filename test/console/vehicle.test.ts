import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { createTestApp } from '../helpers/app.ts';
import { activeConsentRecord } from '../helpers/consents.ts';
import { signIn } from './session.ts';

const VIN = 'V1RTUALV1N0000007';
const NOW = '2026-05-05T12:00:00.000Z';
const clock = new ManualClock(NOW);
const t = await createTestApp({ clock });
const s = await signIn(t.app);
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
const minutesAgo = (m: number) => Date.parse(NOW) - m * 60_000;
const point = (item: string, ms: number, payload: Record<string, unknown>): DataPoint => ({
  vin: VIN, item, timestampMs: ms, payload: { ...payload, timestamp: new Date(ms).toISOString() }, manufacturer: 'virtual', mappingVersion: 'telemetry.jsonata@1', receivedAt: new Date(ms + 500).toISOString(),
});

describe('a vehicle\'s page in the console', () => {
  afterAll(async () => t.cleanup());

  it('shows latest values with their age, the chartable items, events, activations, consents and quarantined messages', async () => {
    const { store } = t.services;
    // Mileage every 10 minutes for two days; one position; one crash 3 hours ago.
    await store.dataPoints.insertMany(Array.from({ length: 288 }, (_, i) => point('mileage', minutesAgo(10 * i + 1), { value: 50_000 - i, unit: 'km' })));
    await store.dataPoints.insertMany([point('geolocation', minutesAgo(0.2), { latitude: 48.137, longitude: 11.575 })]);
    const crash = minutesAgo(180);
    await store.dataPoints.insertMany([{ ...point('accidentautomatic', crash, {}), payload: { receivedAt: new Date(crash).toISOString(), timestamp: new Date(crash).toISOString() } }]);
    await store.vehicles.upsert({ subscriptionId: 's-vehicle', vin: VIN, manufacturer: 'virtual', status: 'ACTIVATED', createdAt: NOW, updatedAt: NOW });
    await store.consents.create(activeConsentRecord(NOW, { consumerId: 'c-1', subscriptionId: 's-vehicle', vin: VIN, email: 'someone@example.com', firstName: 'Alex' }));
    await store.quarantine.put({
      id: 'q-vehicle', manufacturer: 'virtual', messageType: 'telemetry', code: 'SCHEMA_VIOLATION', reason: 'mileage: /value must be >= 0', mappingVersion: null, vin: VIN,
      topic: null, raw: '{}', rawEncoding: 'utf8', rawTruncated: false, receivedAt: NOW, quarantinedAt: NOW, lastFailedAt: NOW, failures: 1,
    });

    const page = await get(`/console/vehicles/${VIN.toLowerCase()}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<title>${VIN} · CVD console</title>`);
    expect(page.body).toMatch(/<tr data-item="mileage"><td>mileage <a class="chart-toggle" href="\/console\/vehicles\/V1RTUALV1N0000007\?range=24h&#38;items=" title="Remove its chart">charted ✕<\/a><\/td><td>50000 km<\/td><td><time datetime="2026-05-05T11:59:00.000Z" data-age[^>]*>1 min ago<\/time>/);
    expect(page.body).toMatch(/<tr data-item="geolocation"><td>geolocation<\/td><td>48\.1370, 11\.5750<\/td><td><time[^>]*>12 s ago/);
    // Numeric items get a chart, positions and events do not.
    expect([...page.body.matchAll(/data-chart="([^"]+)"/g)].map((m) => m[1])).toEqual(['mileage']);
    // The operator picks the charts: none, then mileage again.
    const none = await get(`/console/vehicles/${VIN}?range=6h&items=`);
    expect(none.body).not.toContain('data-chart=');
    expect(none.body).toContain('<a class="chart-toggle" href="/console/vehicles/V1RTUALV1N0000007?range=6h&#38;items=mileage" title="Chart it">chart</a>');
    expect(page.body).toMatch(/<table id="events">[\s\S]*accidentautomatic[\s\S]*<\/table>/);
    expect(page.body).toMatch(/<table id="activations">[\s\S]*s-vehicle[\s\S]*ACTIVATED/);
    expect(page.body).toMatch(/<table id="consents">[\s\S]*s-vehicle[\s\S]*ACTIVE/);
    expect(page.body).not.toContain('someone@example.com');
    expect(page.body).not.toContain('Alex');
    expect(page.body).toMatch(/<table id="quarantine">[\s\S]*href="\/console\/quarantine\/q-vehicle"[\s\S]*SCHEMA_VIOLATION/);
    expect(page.body).toMatch(/<a href="\/console\/vehicles\/V1RTUALV1N0000007\?range=6h" data-range="6h">/);
    expect(page.body).toContain('<a href="/console/vehicles/V1RTUALV1N0000007?range=24h" data-range="24h" aria-current="true">');

    // The fleet table links each VIN here.
    expect((await get('/console/fleet')).body).toContain(`<a href="/console/vehicles/${VIN}"><code>${VIN}</code></a>`);
  });

  it('answers a chart with the points of the chosen range, oldest first', async () => {
    const day = (await get(`/console/vehicles/${VIN}/history.json?item=mileage&range=24h`)).json() as { times: number[]; values: number[]; unit: string; truncated: boolean };
    expect(day.times).toHaveLength(144);
    expect(day.unit).toBe('km');
    expect(day.truncated).toBe(false);
    expect(day.times[0]).toBeGreaterThanOrEqual((Date.parse(NOW) - 86_400_000) / 1000);
    expect(day.times).toEqual([...day.times].sort((a, b) => a - b));
    expect(day.values.at(-1)).toBe(50_000);
    const hour = (await get(`/console/vehicles/${VIN}/history.json?item=mileage&range=1h`)).json() as { times: number[] };
    expect(hour.times).toHaveLength(6);
    expect((await get(`/console/vehicles/${VIN}/history.json?item=nothing&range=1h`)).statusCode).toBe(404);
    // A reading every 2 seconds for the last hour: averaged to at most 1,000 points over the whole hour.
    await t.services.store.dataPoints.insertMany(Array.from({ length: 1800 }, (_, i) => point('vehiclespeed', Date.parse(NOW) - 2000 * (i + 1), { value: i % 2 ? 40 : 60, unit: 'km/h' })));
    const busy = (await get(`/console/vehicles/${VIN}/history.json?item=vehiclespeed&range=1h`)).json() as { times: number[]; values: number[] };
    expect(busy.times.length).toBeLessThanOrEqual(1000);
    expect(busy.times.length).toBeGreaterThan(900);
    expect(busy.times[0]).toBeLessThan((Date.parse(NOW) - 3_500_000) / 1000);
    expect(busy.values.every((v) => v >= 40 && v <= 60)).toBe(true);
    expect(busy.values.some((v) => v === 50)).toBe(true);
  });

  it('says when it knows nothing of a VIN, and refuses what cannot be one', async () => {
    const unknown = await get('/console/vehicles/WVWZZZ1JZXW000001');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toContain('The service knows nothing of this vehicle');
    const bad = await get('/console/vehicles/NOT-A-VIN');
    expect(bad.statusCode).toBe(404);
    expect(bad.body).toContain('A VIN has 17 digits');
  });
});
