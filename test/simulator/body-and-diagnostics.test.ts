import { describe, expect, it } from 'vitest';
import { POSITIONS, type TelemetryMessage } from '../../simulator/src/raw-format.ts';
import { sample } from '../../simulator/src/sample.ts';
import { allVehicles, at, daySamples, hhmm, vehicle } from './fixtures.ts';

/*
 * The signals added with catalog version 4, over a whole simulated day of every vehicle:
 * doors and trunk, locks, windows, ignition, outside temperature, trouble codes, check-control
 * severities and basic vehicle data, each tied to what the vehicle does in its scenario.
 */

const DAY = '2026-11-25';
const days = new Map(allVehicles().map((v) => [v.vin, daySamples(v, DAY)]));
const anyOpen = (m: TelemetryMessage) => m.signals.body!.trunkOpen || POSITIONS.some((p) => m.signals.body!.doors[p].open);

describe('doors, trunk, locks and ignition', () => {
  it('doors and trunk open only when parked, and every vehicle opens its driver door at some stop', () => {
    for (const [vin, day] of days) {
      for (const m of day) if (anyOpen(m)) expect(m.signals.motion.speedKmh, `${vin} ${hhmm(m)}`).toBe(0);
      expect(day.some((m) => m.signals.body!.doors.frontLeft.open), vin).toBe(true);
    }
    // The trunk opens at some stops of the day (per VIN and stop), never all of them.
    const trunkMinutes = [...days.values()].flat().filter((m) => m.signals.body!.trunkOpen).length;
    expect(trunkMinutes).toBeGreaterThan(0);
  });

  it('unlocked just after stopping, locked after five minutes, double-locked after an hour parked; open doors are unlocked', () => {
    const v = vehicle('0000001'); // drives 00:00-01:00 every 2 h
    const at_ = (t: string) => sample(v, at(`${DAY}T${t}:00Z`)).signals.body!;
    expect(at_('00:30').central).toBe('LOCKED'); // driving: locked as it drove off
    expect(at_('01:00').doors.frontLeft).toEqual({ open: true, locked: false });
    expect(at_('01:03').central).toBe('UNLOCKED');
    expect(at_('01:10').central).toBe('LOCKED');
    expect(at_('01:10').doors.rearRight).toEqual({ open: false, locked: true });
    // 0000004 stands from 07:30 until 12:00: double-locked after an hour.
    const parked = sample(vehicle('0000004'), at(`${DAY}T09:00:00Z`)).signals.body!;
    expect(parked.central).toBe('DOUBLE_LOCKED');
    for (const day of days.values()) for (const m of day) for (const p of POSITIONS) if (m.signals.body!.doors[p].open) expect(m.signals.body!.doors[p].locked).toBe(false);
  });

  it('the ignition is on exactly while the engine runs; the fuel flap unlocks only while refuelling', () => {
    for (const [vin, day] of days) {
      for (const m of day) expect(m.signals.engine.ignition, `${vin} ${hhmm(m)}`).toBe(m.signals.engine.running ? 'ON' : 'OFF');
    }
    const v1 = days.get('V1RTUALV1N0000001')!; // refuels 03:00-03:10
    expect(v1.filter((m) => m.signals.body!.fuelFlapLocked === false).map(hhmm)).toEqual(Array.from({ length: 10 }, (_, i) => `03:0${i}`));
    expect(days.get('V1RTUALV1N0000003')![0]!.signals.body!.fuelFlapLocked).toBeUndefined(); // electric: no filler flap
  });

  it('front windows are ajar only while driving in warm air', () => {
    for (const day of days.values()) {
      for (const m of day) {
        const w = m.signals.body!.windowsPct;
        if (w.frontLeft > 0) expect(m.signals.engine.running && m.signals.environment!.outsideC >= 15).toBe(true);
        expect(w.rearLeft + w.rearRight).toBe(0);
      }
    }
    expect(days.get('V1RTUALV1N0000S09')!.some((m) => m.signals.body!.windowsPct.frontLeft > 0)).toBe(true);
  });
});

describe('outside temperature', () => {
  it('is coldest around 03:00 and warmest around 15:00', () => {
    const mean = (from: number, to: number) => {
      const xs = [...days.values()].flatMap((d) => d.slice(from, to).map((m) => m.signals.environment!.outsideC));
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const night = mean(150, 210);
    const afternoon = mean(870, 930);
    expect(night).toBeLessThan(5);
    expect(afternoon).toBeGreaterThan(15);
  });
});

describe('diagnostic trouble codes and check-control messages', () => {
  const codes = (suffix: string, t: string) => sample(vehicle(suffix), at(`${DAY}T${t}:00Z`)).signals.diagnostics!.codes;

  it('only the crashed and the leaking vehicles have trouble codes', () => {
    for (const [vin, day] of days) {
      const has = day.some((m) => m.signals.diagnostics!.codes.length > 0);
      expect(has, vin).toBe(['V1RTUALV1N0000S06', 'V1RTUALV1N0000S07', 'V1RTUALV1N0000S08'].includes(vin));
    }
  });

  it("S06's severe crash with rollover: confirmed crash and rollover codes, stamped with the last crash (yesterday's before 08:00)", () => {
    expect(codes('S06', '07:59')).toEqual([
      { code: 'B0001', ecu: 'ACSM', count: 1, firstSeen: '2026-11-24T08:00:00.000Z', confirmed: true },
      { code: 'B0052', ecu: 'ACSM', count: 1, firstSeen: '2026-11-24T08:00:00.000Z', confirmed: true },
    ]);
    expect(codes('S06', '08:00').map((c) => c.firstSeen)).toEqual(['2026-11-25T08:00:00.000Z', '2026-11-25T08:00:00.000Z']);
  });

  it("S07's leaking tank adds a confirmed evaporative-leak code to its crash code; S08's light crashes recur (96 a day)", () => {
    expect(codes('S07', '10:00').map((c) => [c.code, c.confirmed])).toEqual([
      ['B0001', true],
      ['P0455', true],
    ]);
    expect(codes('S07', '10:00')[0]!.firstSeen).toBe('2026-11-25T07:30:00.000Z');
    expect(codes('S08', '10:07')).toEqual([{ code: 'B0001', ecu: 'ACSM', count: 96, firstSeen: '2026-11-25T10:00:00.000Z', confirmed: true }]);
  });

  it('check-control messages carry a severity and a whole-number code, and follow the faults', () => {
    for (const [vin, day] of days) {
      for (const m of day) {
        for (const c of m.signals.checkControl!) {
          expect(['CRITICAL', 'WARNING', 'INFO', 'UNKNOWN'], vin).toContain(c.status);
          expect(Number.isInteger(c.value)).toBe(true);
        }
      }
    }
    const s07 = sample(vehicle('S07'), at(`${DAY}T10:00:00Z`)).signals.checkControl!;
    expect(s07.filter((c) => c.status === 'CRITICAL').map((c) => c.value)).toEqual([10, 600]);
    expect(sample(vehicle('0000001'), at(`${DAY}T10:00:00Z`)).signals.checkControl!.some((c) => c.value === 10 || c.value === 600)).toBe(false);
  });
});

describe('basic vehicle data', () => {
  it('each vehicle sends its own, the same all day', () => {
    const infos = allVehicles().map((v) => JSON.stringify(sample(v, at(`${DAY}T10:00:00Z`)).signals.vehicleInfo));
    expect(new Set(infos).size).toBe(13);
    for (const day of days.values()) expect(new Set(day.map((m) => JSON.stringify(m.signals.vehicleInfo))).size).toBe(1);
    expect(sample(vehicle('0000002'), at(`${DAY}T10:00:00Z`)).signals.vehicleInfo).toMatchObject({ bodyType: 'Convertible', seats: 4 });
  });
});
