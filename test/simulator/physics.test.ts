import { describe, expect, it } from 'vitest';
import { buildFleet, fleetVin } from '../../simulator/src/fleet.ts';
import { sample } from '../../simulator/src/sample.ts';
import { bearingDeg, haversineKm } from '../../simulator/src/routes.ts';
import { allVehicles, at, daySamples, hhmm, vehicle } from './fixtures.ts';

/* Coherent physics for every vehicle over a whole simulated day, minute by minute. */

const DAY = '2026-11-25';
const days = new Map(allVehicles().map((v) => [v.vin, daySamples(v, DAY)]));
const angle = (a: number, b: number) => Math.abs(((a - b + 540) % 360) - 180);

describe.each([...days.keys()])('%s', (vin) => {
  const day = days.get(vin)!;

  it('stays near Karlsruhe/Mannheim and moves only while driving, no faster than its speed', () => {
    for (let i = 0; i + 1 < day.length; i++) {
      const [a, b] = [day[i]!.signals, day[i + 1]!.signals];
      expect(a.position.lat).toBeGreaterThan(48.9);
      expect(a.position.lat).toBeLessThan(49.6);
      expect(a.position.lon).toBeGreaterThan(8.3);
      expect(a.position.lon).toBeLessThan(8.8);
      const moved = haversineKm(a.position, b.position);
      const moving = a.motion.speedKmh > 0 || b.motion.speedKmh > 0;
      if (!moving) expect(moved, hhmm(day[i]!)).toBe(0);
      // At most the distance the mean speed allows (plus rounding of the published figures).
      else expect(moved, hhmm(day[i]!)).toBeLessThanOrEqual((a.motion.speedKmh + b.motion.speedKmh) / 120 + 0.005);
    }
  });

  it('heading points where the vehicle goes', () => {
    let driving = 0;
    let aligned = 0;
    for (let i = 0; i + 1 < day.length; i++) {
      const [a, b] = [day[i]!.signals, day[i + 1]!.signals];
      if (a.motion.speedKmh === 0 || b.motion.speedKmh === 0 || haversineKm(a.position, b.position) < 0.05) continue;
      driving++;
      if (angle(bearingDeg(a.position, b.position), b.motion.headingDeg) < 25) aligned++;
    }
    // Corners and the turn at each end of the route bend a few minutes; the rest match.
    expect(aligned / driving).toBeGreaterThan(0.85);
  });

  it('mileage rises only while driving, engine status follows driving, accelerations only while moving', () => {
    for (let i = 0; i + 1 < day.length; i++) {
      const [a, b] = [day[i]!.signals, day[i + 1]!.signals];
      const moving = a.motion.speedKmh > 0 || b.motion.speedKmh > 0;
      if (moving) expect(b.odometerKm, hhmm(day[i]!)).toBeGreaterThan(a.odometerKm);
      else expect(b.odometerKm, hhmm(day[i]!)).toBe(a.odometerKm);
      expect(a.engine.running).toBe(a.motion.speedKmh > 0);
      if (a.motion.speedKmh === 0) expect(a.motion.accel).toEqual({ longitudinal: 0, lateral: 0, vertical: 0 });
    }
  });

  it('fuel or charge falls while driving and rises only at a stop, with the engine off', () => {
    const level = (s: (typeof day)[number]['signals']) => s.fuel?.levelPct ?? s.traction!.socPct;
    for (let i = 0; i + 1 < day.length; i++) {
      const [a, b] = [day[i]!.signals, day[i + 1]!.signals];
      if (a.motion.speedKmh > 0) expect(level(b), hhmm(day[i]!)).toBeLessThan(level(a));
      if (level(b) > level(a)) {
        expect(a.engine.running).toBe(false);
        expect(a.motion.speedKmh).toBe(0);
      }
    }
  });

  it('is continuous across midnight and the same message at the same minute', () => {
    const before = sample(vehicleOf(vin), at(`${DAY}T23:59:00Z`));
    const after = sample(vehicleOf(vin), at('2026-11-26T00:00:00Z'));
    expect(after.signals.odometerKm).toBeGreaterThanOrEqual(before.signals.odometerKm);
    expect(haversineKm(before.signals.position, after.signals.position)).toBeLessThan(3);
    expect(sample(vehicleOf(vin), at(`${DAY}T10:17:42Z`))).toEqual(sample(vehicleOf(vin), at(`${DAY}T10:17:00Z`)));
    expect(sample(vehicleOf(vin), at(`${DAY}T10:17:00Z`)).sampledAt).toBe(`${DAY}T10:17:00.000Z`);
  });
});

function vehicleOf(vin: string) {
  return vehicle(vin.slice(10));
}

describe('time zone and fleet', () => {
  it('SIM_UTC_OFFSET_MINUTES shifts the schedules: at +60 0000001 drives at 01:30 UTC (02:30 local)', () => {
    const zone = { utcOffsetMinutes: 60 };
    expect(sample(vehicle('0000001'), at('2026-11-25T01:30:00Z'), zone).signals.motion.speedKmh).toBeGreaterThan(0);
    expect(sample(vehicle('0000001'), at('2026-11-25T02:30:00Z'), zone).signals.motion.speedKmh).toBe(0);
    expect(sample(vehicle('0000001'), at('2026-11-25T01:30:00Z'), zone).sampledAt).toBe('2026-11-25T01:30:00.000Z');
  });

  it('fleet vehicles have valid, distinct VINs that never collide with the thirteen, and behave like their template', () => {
    const fleet = buildFleet(allVehicles(), 1000);
    const vins = fleet.map((v) => v.vin);
    expect(new Set(vins).size).toBe(1000);
    for (const vin of vins) expect(vin).toMatch(/^V1RTUALV1N[A-HJ-NPR-Z0-9]{7}$/);
    expect(vins.some((v) => allVehicles().some((t) => t.vin === v))).toBe(false);
    expect(fleetVin(999999)).toHaveLength(17);
    // Fleet vehicle 0 copies the first scenario (0000001): drives in even hours, elsewhere on the road.
    const f = sample(fleet[0]!, at('2026-11-25T02:30:00Z'));
    const t = sample(vehicle('0000001'), at('2026-11-25T02:30:00Z'));
    expect(f.signals.motion.speedKmh).toBe(t.signals.motion.speedKmh);
    expect(f.signals.position).not.toEqual(t.signals.position);
    expect(fleet[0]!.profile).toBe(vehicle('0000001').profile);
  });
});
