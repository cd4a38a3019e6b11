import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { ConfigError } from '../../src/config.ts';
import { loadSimSettings } from '../../simulator/src/settings.ts';
import { createSimClock } from '../../simulator/src/sim-clock.ts';

describe('SIM_CLOCK', () => {
  it('real follows the wall clock', () => {
    const wall = new ManualClock('2026-11-25T10:00:00Z');
    const clock = createSimClock(loadSimSettings({ SIM_CLOCK: 'real' }).SIM_CLOCK, wall);
    wall.advance(90_000);
    expect(new Date(clock.now()).toISOString()).toBe('2026-11-25T10:01:30.000Z');
  });

  it('fixed never moves', () => {
    const wall = new ManualClock();
    const clock = createSimClock(loadSimSettings({ SIM_CLOCK: 'fixed:2026-11-25T02:30:00Z' }).SIM_CLOCK, wall);
    wall.advance(3_600_000);
    expect(new Date(clock.now()).toISOString()).toBe('2026-11-25T02:30:00.000Z');
  });

  it('scaled starts at its instant when created and runs factor times faster', () => {
    const wall = new ManualClock('2030-01-01T00:00:00Z');
    const clock = createSimClock(loadSimSettings({ SIM_CLOCK: 'scaled:60@2026-11-25T02:00:00Z' }).SIM_CLOCK, wall);
    expect(new Date(clock.now()).toISOString()).toBe('2026-11-25T02:00:00.000Z');
    wall.advance(30_000); // 30 s of wall time = 30 simulated minutes
    expect(new Date(clock.now()).toISOString()).toBe('2026-11-25T02:30:00.000Z');
    const slow = createSimClock(loadSimSettings({ SIM_CLOCK: 'scaled:0.5@2026-11-25T02:00:00+01:00' }).SIM_CLOCK, wall);
    wall.advance(60_000);
    expect(new Date(slow.now()).toISOString()).toBe('2026-11-25T01:00:30.000Z');
  });

  it.each(['sometimes', 'fixed:yesterday', 'fixed:2026-13-45T00:00:00Z', 'scaled:fast@2026-11-25T00:00:00Z', 'scaled:0@2026-11-25T00:00:00Z', 'scaled:10', 'scaled:10@noon'])(
    'stops the start on "%s", naming SIM_CLOCK',
    (value) => {
      expect(() => loadSimSettings({ SIM_CLOCK: value })).toThrow(ConfigError);
      try {
        loadSimSettings({ SIM_CLOCK: value });
      } catch (err) {
        expect((err as ConfigError).variable).toBe('SIM_CLOCK');
        expect((err as Error).message).toContain('SIM_CLOCK');
      }
    },
  );

  it.each([['SIM_UTC_OFFSET_MINUTES', '900'], ['SIM_MAX_INFLIGHT', '0'], ['SIM_FLEET_RATE', '-1'], ['SIM_FLEET_SIZE', 'many']])('rejects %s=%s naming it', (name, value) => {
    expect(() => loadSimSettings({ [name]: value })).toThrow(name);
  });
});
