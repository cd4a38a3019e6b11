import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { Running } from '../../src/running.ts';
import { defaultPaths } from '../../src/paths.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { startHarness, waitFor, type Harness } from '../pipeline/harness.ts';
import { customScenario, SCENARIOS_DIR } from './fixtures.ts';

/*
 * End to end: the simulator publishes through the embedded broker (logged in as the virtual
 * manufacturer), the pipeline harmonizes, and the assertions read the stored catalog data.
 * One simulated day, sampled every 15 minutes: SIM_MAX_CATCHUP_MINUTES=2 makes each round
 * publish the sampled minute and the one before it, so "rising" can be checked per sample.
 */

const DAY = '2026-11-25';
const T0 = Date.parse(`${DAY}T00:00:00Z`);
const STEP_MIN = 15;
const CUSTOM = customScenario.vin;
const VINS = [
  ...['0000001', '0000002', '0000003', '0000004', '0000S05', '0000S06', '0000S07', '0000S08', '0000S09', '0000S10', '0000S11', '0000S12', '0000S13'].map(
    (s) => `V1RTUALV1N${s}`,
  ),
  CUSTOM,
];

let h: Harness;
let sim: Running[] = [];
let dir: string;

/** The points of the simulated day; the start adds each vehicle's last events from before it. */
async function history(vin: string, item: string): Promise<DataPoint[]> {
  return (await allHistory(vin, item)).filter((p) => p.timestampMs >= T0);
}

async function allHistory(vin: string, item: string): Promise<DataPoint[]> {
  const out: DataPoint[] = [];
  let cursor: string | undefined;
  do {
    const page = await h.services.store.dataPoints.history({ vin, item, limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out.sort((a, b) => a.timestampMs - b.timestampMs);
}

const value = (p: DataPoint) => p.payload.value as number;
const at = (points: DataPoint[], hhmm: string) => points.find((p) => p.timestampMs === Date.parse(`${DAY}T${hhmm}:00Z`));
const hhmm = (p: DataPoint) => new Date(p.timestampMs).toISOString().slice(11, 16);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvd-sim-e2e-'));
  for (const f of readdirSync(SCENARIOS_DIR)) copyFileSync(join(SCENARIOS_DIR, f), join(dir, f));
  writeFileSync(join(dir, 'c000042-van.json'), JSON.stringify(customScenario));
  const wall = new ManualClock('2031-05-05T12:00:00Z');
  h = await startHarness({
    clock: wall,
    paths: { ...defaultPaths(), scenarios: dir },
    env: { SIM_CLOCK: `scaled:60@${DAY}T00:00:00Z`, SIM_TICK_MS: '10', SIM_MAX_CATCHUP_MINUTES: '2', PIPELINE_BATCH_MAX_WAIT_MS: '2' },
  });
  sim = await h.wing!.simulatorRole!(h.services, h.brokerUrl!);
  const stored = async (minute: number) => {
    for (const vin of VINS) {
      const page = await h.services.store.dataPoints.history({ vin, item: 'mileage', fromMs: T0 + minute * 60_000, toMs: T0 + minute * 60_000 + 1, limit: 1 });
      if (page.items.length === 0) return false;
    }
    return true;
  };
  for (let minute = 0; minute < 1440; minute += STEP_MIN) {
    if (minute > 0) wall.advance(STEP_MIN * 1000); // 1 s wall = 1 simulated minute
    await waitFor(() => stored(minute), 20_000, `the samples of minute ${minute}`);
  }
  // The last round's events are stored with its telemetry; give the batcher a moment.
  await new Promise((r) => setTimeout(r, 200));
}, 240_000);

afterAll(async () => {
  for (const r of sim) await r.close();
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('simulated vehicles → embedded broker → pipeline → store', () => {
  it('every stored payload of every vehicle is valid against its catalog schema', async () => {
    const items = h.services.catalog.list().map((e) => e.technicalName);
    let checked = 0;
    const itemsSeen = new Set<string>();
    for (const vin of VINS) {
      for (const item of items) {
        for (const p of await allHistory(vin, item)) {
          expect(h.services.catalog.validate(item, p.payload), `${vin} ${item} ${hhmm(p)}`).toEqual({ valid: true });
          expect(p.manufacturer).toBe('virtual');
          itemsSeen.add(item);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(50_000);
    // Every item the virtual adapter feeds has live data (all 74 catalog items since catalog version 4).
    expect(itemsSeen.size).toBeGreaterThanOrEqual(h.services.adapters.get('virtual')!.manifest.items.length);
    // Over 50,000 points read page by page and validated: 3 s on an idle host, 45 s on a busy one.
  }, 120_000);

  it('at 02:30 UTC 0000001 drives and 0000002 is parked; at 03:30 the reverse; 0000003 drives at both', async () => {
    const [speed1, speed2, speed3] = await Promise.all(VINS.slice(0, 3).map((v) => history(v, 'vehiclespeed')));
    const [engine1, engine2] = await Promise.all(VINS.slice(0, 2).map((v) => history(v, 'enginestatus')));
    const [miles1, miles2] = await Promise.all(VINS.slice(0, 2).map((v) => history(v, 'mileage')));
    expect(value(at(speed1!, '02:30')!)).toBeGreaterThan(0);
    expect(at(engine1!, '02:30')!.payload.value).toBe('ON');
    // Mileage is whole km: over a quarter of an hour of driving it rises.
    expect(value(at(miles1!, '02:30')!)).toBeGreaterThan(value(at(miles1!, '02:15')!));
    expect(value(at(speed2!, '02:30')!)).toBe(0);
    expect(at(engine2!, '02:30')!.payload.value).toBe('OFF');
    expect(value(at(miles2!, '02:30')!)).toBe(value(at(miles2!, '02:29')!));

    expect(value(at(speed1!, '03:30')!)).toBe(0);
    expect(at(engine1!, '03:30')!.payload.value).toBe('OFF');
    expect(value(at(miles1!, '03:30')!)).toBe(value(at(miles1!, '03:29')!));
    expect(value(at(speed2!, '03:30')!)).toBeGreaterThan(0);
    expect(at(engine2!, '03:30')!.payload.value).toBe('ON');
    expect(value(at(miles2!, '03:30')!)).toBeGreaterThan(value(at(miles2!, '03:15')!));

    expect(value(at(speed3!, '02:30')!)).toBeGreaterThan(0);
    expect(value(at(speed3!, '03:30')!)).toBeGreaterThan(0);
  });

  it('over the sampled day 0000004 stays at or below 20 % and S05 between 80 and 100 %', async () => {
    const low = (await history('V1RTUALV1N0000004', 'sochighlevel')).map(value);
    const high = (await history('V1RTUALV1N0000S05', 'sochighlevel')).map(value);
    expect(low.length).toBeGreaterThanOrEqual(190);
    expect(Math.max(...low)).toBeLessThanOrEqual(20);
    expect(Math.min(...high)).toBeGreaterThanOrEqual(80);
    expect(Math.max(...high)).toBeLessThanOrEqual(100);
  });

  it('S08 crashes with severity 1 every 15 minutes, each an accidentautomatic', async () => {
    const accidents = await history('V1RTUALV1N0000S08', 'accidentautomatic');
    const severity = await history('V1RTUALV1N0000S08', 'crashseverity');
    expect(accidents.map(hhmm)).toEqual(Array.from({ length: 96 }, (_, i) => new Date(T0 + i * 15 * 60_000).toISOString().slice(11, 16)));
    expect(severity).toHaveLength(96);
    for (const s of severity) expect(value(s)).toBe(1);
  });

  it('S06 and S07 crash with severity 5 and 2, with the crash locations; S07 fuel level falls', async () => {
    expect((await history('V1RTUALV1N0000S06', 'crashseverity')).map((p) => [hhmm(p), value(p)])).toEqual([['08:00', 5]]);
    expect((await history('V1RTUALV1N0000S06', 'crashlocationrollover')).map(value)).toEqual([true]);
    expect((await history('V1RTUALV1N0000S07', 'crashseverity')).map((p) => [hhmm(p), value(p)])).toEqual([
      ['01:30', 2],
      ['07:30', 2],
      ['13:30', 2],
      ['19:30', 2],
    ]);
    expect((await history('V1RTUALV1N0000S07', 'accidentautomatic')).map(hhmm)).toEqual(['01:30', '07:30', '13:30', '19:30']);
    const fuel = (await history('V1RTUALV1N0000S07', 'fuellevel')).filter((p) => hhmm(p) >= '00:10');
    for (let i = 1; i < fuel.length; i++) expect(value(fuel[i]!), hhmm(fuel[i]!)).toBeLessThan(value(fuel[i - 1]!));
  });

  it('S09 to S12 drive only between 06:00 and 20:00 and their fuel rises at stops; S13 reads exactly 12.0 V', async () => {
    for (const vin of VINS.slice(8, 12)) {
      const speed = await history(vin, 'vehiclespeed');
      for (const p of speed) if (value(p) > 0) expect(hhmm(p) >= '06:00' && hhmm(p) < '20:00', `${vin} at ${hhmm(p)}`).toBe(true);
      expect(speed.filter((p) => value(p) > 0).length).toBeGreaterThan(80);
      const fuel = await history(vin, 'fuellevel');
      const rises = fuel.filter((p, i) => i > 0 && value(p) > value(fuel[i - 1]!)).map(hhmm);
      expect(rises.length, vin).toBeGreaterThanOrEqual(3);
      for (const t of rises) expect(t >= '06:00' && t <= '20:00', `${vin} refuelled at ${t}`).toBe(true);
    }
    const volts = await history('V1RTUALV1N0000S13', 'batteryvoltage');
    expect(volts.length).toBeGreaterThanOrEqual(190);
    for (const p of volts) expect(value(p)).toBe(12.0);
  });

  it('the documented emergency and teleservice calls arrive as accidentcallmanual / automaticteleservicecall', async () => {
    expect((await history('V1RTUALV1N0000S11', 'accidentcallmanual')).map(hhmm)).toEqual(['17:30']);
    expect((await history('V1RTUALV1N0000S09', 'automaticteleservicecall')).map(hhmm)).toEqual(['12:00']);
    expect((await history('V1RTUALV1N0000S12', 'automaticteleservicecall')).map(hhmm)).toEqual(['04:00', '12:00', '20:00']);
  });

  it('the start stored each vehicle\'s last events of the day before (past events), and no other', async () => {
    const before = async (vin: string, item: string) => (await allHistory(vin, item)).filter((p) => p.timestampMs < T0).map((p) => new Date(p.timestampMs).toISOString());
    expect(await before('V1RTUALV1N0000S06', 'crashseverity')).toEqual(['2026-11-24T08:00:00.000Z']);
    expect(await before('V1RTUALV1N0000S06', 'accidentcallmanual')).toEqual(['2026-11-24T08:02:00.000Z']);
    expect(await before('V1RTUALV1N0000S07', 'crashlocationrearleft')).toHaveLength(1);
    expect(await before('V1RTUALV1N0000S08', 'accidentautomatic')).toEqual(['2026-11-24T23:45:00.000Z']);
    expect(await before('V1RTUALV1N0000S12', 'automaticteleservicecall')).toEqual(['2026-11-24T20:00:00.000Z']);
    expect(await before('V1RTUALV1N0000001', 'mileage')).toEqual([]);
  });

  it("the test's own scenario file defines a new virtual VIN whose data reaches the store", async () => {
    expect((await history(CUSTOM, 'mileage')).length).toBeGreaterThanOrEqual(190);
    expect((await history(CUSTOM, 'automaticteleservicecall')).map(hhmm)).toEqual(['12:00']);
    expect((await history(CUSTOM, 'chargingstatus')).some((p) => p.payload.value === 'ACTIVE')).toBe(true);
  });
});
