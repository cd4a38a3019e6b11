import { describe, expect, it } from 'vitest';
import { eventsBetween } from '../../simulator/src/events.ts';
import { sample } from '../../simulator/src/sample.ts';
import { at, daySamples, hhmm, vehicle } from './fixtures.ts';

/*
 * The thirteen vehicles of spec section 1, as pure functions of VIN and simulated time: the
 * clock is set by passing the instant, and the assertions read the raw messages a consumer's
 * data would come from.
 */

const DAY = '2026-11-25';
const speed = (vin: string, iso: string) => sample(vehicle(vin), at(iso)).signals.motion.speedKmh;

describe('0000001 (even hours) and 0000002 (odd hours)', () => {
  it('at 02:30 UTC 0000001 drives (speed > 0, mileage rising, engine on) and 0000002 is parked', () => {
    const a = sample(vehicle('0000001'), at(`${DAY}T02:30:00Z`));
    const a2 = sample(vehicle('0000001'), at(`${DAY}T02:31:00Z`));
    expect(a.signals.motion.speedKmh).toBeGreaterThan(0);
    expect(a.signals.engine.running).toBe(true);
    expect(a2.signals.odometerKm).toBeGreaterThan(a.signals.odometerKm);

    const b = sample(vehicle('0000002'), at(`${DAY}T02:30:00Z`));
    const b2 = sample(vehicle('0000002'), at(`${DAY}T02:31:00Z`));
    expect(b.signals.motion.speedKmh).toBe(0);
    expect(b.signals.engine.running).toBe(false);
    expect(b2.signals.odometerKm).toBe(b.signals.odometerKm);
    expect(b2.signals.position).toEqual(b.signals.position);
  });

  it('at 03:30 UTC it is the other way round', () => {
    expect(speed('0000001', `${DAY}T03:30:00Z`)).toBe(0);
    expect(sample(vehicle('0000001'), at(`${DAY}T03:30:00Z`)).signals.engine.running).toBe(false);
    expect(speed('0000002', `${DAY}T03:30:00Z`)).toBeGreaterThan(0);
    expect(sample(vehicle('0000002'), at(`${DAY}T03:30:00Z`)).signals.engine.running).toBe(true);
  });

  it('drive in every even (0000001) / odd (0000002) hour of the day and in no other', () => {
    for (let h = 0; h < 24; h++) {
      const iso = `${DAY}T${String(h).padStart(2, '0')}:30:00Z`;
      expect(speed('0000001', iso) > 0, `0000001 at ${iso}`).toBe(h % 2 === 0);
      expect(speed('0000002', iso) > 0, `0000002 at ${iso}`).toBe(h % 2 === 1);
    }
  });

  it('0000002 is a convertible: the top opens while driving in the afternoon, is locked when parked', () => {
    const open = sample(vehicle('0000002'), at(`${DAY}T13:30:00Z`)).signals.roof;
    const parked = sample(vehicle('0000002'), at(`${DAY}T14:30:00Z`)).signals.roof;
    expect(open).toEqual({ positionPct: 100, status: 'OPENED' });
    expect(parked).toEqual({ positionPct: 0, status: 'LOCKED' });
  });
});

describe('0000003 (electric, every hour)', () => {
  it('drives at 02:30 and at 03:30', () => {
    expect(speed('0000003', `${DAY}T02:30:00Z`)).toBeGreaterThan(0);
    expect(speed('0000003', `${DAY}T03:30:00Z`)).toBeGreaterThan(0);
  });

  it('charge falls while driving, rises while charging, with a charging status to match', () => {
    const day = daySamples(vehicle('0000003'), DAY);
    const soc = (m: (typeof day)[number]) => m.signals.traction!.socPct;
    let fell = 0;
    let rose = 0;
    for (let i = 0; i + 1 < day.length; i++) {
      const [a, b] = [day[i]!, day[i + 1]!];
      const charging = a.signals.traction!.charging.status === 'ACTIVE';
      if (a.signals.motion.speedKmh > 0) {
        expect(soc(b), hhmm(a)).toBeLessThan(soc(a));
        fell++;
      }
      if (charging) {
        expect(soc(b), hhmm(a)).toBeGreaterThan(soc(a));
        expect(a.signals.traction!.charging.plug).toBe('CONNECTED');
        expect(a.signals.engine.running).toBe(false);
        rose++;
      }
    }
    expect(fell).toBeGreaterThan(600);
    // Eight 15-minute stops a day (02:45, 05:45, ... 23:45); the last minute's rise is tomorrow's.
    expect(rose).toBe(8 * 15 - 1);
    expect(day[0]!.signals.fuel).toBeUndefined();
    expect(day[0]!.signals.traction!.sessions.length).toBe(3);
  });
});

describe('0000004 and S05 state of charge', () => {
  it('over a sampled simulated day 0000004 stays at or below 20 % and S05 between 80 and 100 %', () => {
    const low = daySamples(vehicle('0000004'), DAY).map((m) => m.signals.traction!.socPct);
    const high = daySamples(vehicle('0000S05'), DAY).map((m) => m.signals.traction!.socPct);
    expect(Math.max(...low)).toBeLessThanOrEqual(20);
    expect(Math.min(...low)).toBeGreaterThan(0);
    expect(Math.min(...high)).toBeGreaterThanOrEqual(80);
    expect(Math.max(...high)).toBeLessThanOrEqual(100);
    // Both actually move: they drive and charge.
    expect(new Set(low).size).toBeGreaterThan(10);
    expect(new Set(high).size).toBeGreaterThan(10);
  });

  it('holds on other days too (behaviour repeats daily)', () => {
    for (const day of ['2026-01-01', '2027-06-30', '2030-02-28']) {
      for (const m of daySamples(vehicle('0000004'), day).filter((_, i) => i % 7 === 0)) expect(m.signals.traction!.socPct).toBeLessThanOrEqual(20);
      for (const m of daySamples(vehicle('0000S05'), day).filter((_, i) => i % 7 === 0)) expect(m.signals.traction!.socPct).toBeGreaterThanOrEqual(80);
    }
  });
});

describe('crashes', () => {
  it('S06 crashes with severity 5 once a day at 08:00 and calls for help at 08:02', () => {
    const events = eventsBetween(vehicle('0000S06'), at(`${DAY}T00:00:00Z`), at(`${DAY}T23:59:59Z`));
    expect(events.map((e) => [e.occurredAt, e.event.type])).toEqual([
      [`${DAY}T08:00:00.000Z`, 'CRASH'],
      [`${DAY}T08:02:00.000Z`, 'MANUAL_EMERGENCY_CALL'],
    ]);
    expect(events[0]!.event).toMatchObject({ type: 'CRASH', severity: 5, rollover: true });
    // It comes to rest at the crash and stays there.
    expect(speed('0000S06', `${DAY}T07:59:00Z`)).toBeGreaterThan(0);
    const after = sample(vehicle('0000S06'), at(`${DAY}T08:00:00Z`));
    expect(after.signals.motion.speedKmh).toBe(0);
    expect(sample(vehicle('0000S06'), at(`${DAY}T12:00:00Z`)).signals.position).toEqual(after.signals.position);
  });

  it('S07 crashes with severity 2 every 6 hours', () => {
    const events = eventsBetween(vehicle('0000S07'), at(`${DAY}T00:00:00Z`), at(`${DAY}T23:59:59Z`));
    expect(events.map((e) => e.occurredAt.slice(11, 16))).toEqual(['01:30', '07:30', '13:30', '19:30']);
    for (const e of events) expect(e.event).toMatchObject({ type: 'CRASH', severity: 2 });
  });

  it("S07's fuel level falls at every minute between its daily refill (00:00-00:10) and midnight", () => {
    const day = daySamples(vehicle('0000S07'), DAY).filter((m) => hhmm(m) >= '00:10');
    for (let i = 0; i + 1 < day.length; i++) {
      expect(day[i + 1]!.signals.fuel!.levelPct, hhmm(day[i]!)).toBeLessThan(day[i]!.signals.fuel!.levelPct);
    }
    expect(day[0]!.signals.fuel!.levelPct - day[day.length - 1]!.signals.fuel!.levelPct).toBeGreaterThan(50);
  });

  it('S08 crashes with severity 1 every 15 minutes, each a CRASH event with one zone', () => {
    // The interval is (from, to]: start just before midnight to include the 00:00 crash.
    const events = eventsBetween(vehicle('0000S08'), at(`${DAY}T00:00:00Z`).getTime() - 1, at(`${DAY}T23:59:59Z`));
    expect(events).toHaveLength(96);
    events.forEach((e, i) => {
      expect(new Date(e.occurredAt).getTime()).toBe(new Date(`${DAY}T00:00:00Z`).getTime() + i * 15 * 60_000);
      expect(e.event).toMatchObject({ type: 'CRASH', severity: 1 });
      expect(e.event.type === 'CRASH' && e.event.zones).toHaveLength(1);
      expect(e.messageId).toBe(`V1RTUALV1N0000S08:crash:${e.occurredAt}`);
    });
  });

  it('adjacent intervals never repeat or lose an event', () => {
    const v = vehicle('0000S08');
    const start = at(`${DAY}T09:58:17Z`).getTime();
    const ids: string[] = [];
    for (let t = start; t < start + 3 * 3_600_000; t += 37_000) ids.push(...eventsBetween(v, t, t + 37_000).map((e) => e.messageId));
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
  });
});

describe('S09 to S13: long driving from 06:00 to 20:00 with refuelling stops', () => {
  for (const suffix of ['S09', 'S10', 'S11', 'S12', 'S13']) {
    it(`${suffix} drives only between 06:00 and 20:00 and its fuel rises at stops`, () => {
      const day = daySamples(vehicle(`0000${suffix}`), DAY);
      let drivingMinutes = 0;
      const refuels = new Set<string>();
      for (let i = 0; i + 1 < day.length; i++) {
        const m = day[i]!;
        const inHours = hhmm(m) >= '06:00' && hhmm(m) < '20:00';
        if (m.signals.motion.speedKmh > 0) {
          expect(inHours, `driving at ${hhmm(m)}`).toBe(true);
          drivingMinutes++;
        }
        if (day[i + 1]!.signals.fuel!.levelPct > m.signals.fuel!.levelPct) {
          expect(inHours, `refuelling at ${hhmm(m)}`).toBe(true);
          expect(m.signals.motion.speedKmh).toBe(0);
          expect(m.signals.engine.running).toBe(false);
          refuels.add(hhmm(m).slice(0, 2));
        }
      }
      expect(drivingMinutes).toBeGreaterThan(13 * 60);
      expect(refuels.size).toBe(3);
    });
  }

  it("S13's battery voltage is exactly 12.0 V at every sample, driving or not", () => {
    for (const m of daySamples(vehicle('0000S13'), DAY)) expect(m.signals.lowVoltage!.mainV).toBe(12.0);
    // The others' voltage moves (the alternator lifts it while driving).
    expect(sample(vehicle('0000S09'), at(`${DAY}T08:00:00Z`)).signals.lowVoltage!.mainV).toBeGreaterThan(13.5);
  });

  it('S10 and S12 are diesels and send the diesel items', () => {
    for (const s of ['S10', 'S12']) {
      const d = sample(vehicle(`0000${s}`), at(`${DAY}T08:00:00Z`));
      expect(d.powertrain).toBe('DIESEL');
      expect(d.signals.diesel?.particulateFilter).toMatch(/NORMAL_OPERATION|AT_LIMIT/);
    }
  });
});
