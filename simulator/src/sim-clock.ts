import type { Clock } from '../../src/clock.ts';
import type { SimClockSetting } from './settings.ts';

/** Simulated time, in ms since the Unix epoch. */
export interface SimClock {
  now(): number;
}

/**
 * The simulator's clock from SIM_CLOCK over a wall clock (services.clock, so tests drive it
 * with a ManualClock): `real` follows the wall clock, `fixed` never moves, `scaled` starts at
 * its anchor when this is called (process start) and runs `factor` times faster.
 */
export function createSimClock(setting: SimClockSetting, wall: Clock): SimClock {
  switch (setting.kind) {
    case 'real':
      return { now: () => wall.now().getTime() };
    case 'fixed': {
      const at = setting.at.getTime();
      return { now: () => at };
    }
    case 'scaled': {
      const wallStart = wall.now().getTime();
      const anchor = setting.anchor.getTime();
      return { now: () => anchor + (wall.now().getTime() - wallStart) * setting.factor };
    }
  }
}
