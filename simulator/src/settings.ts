import { ConfigError, def, fraction, int, readSettings, type Parser, type SettingsOf } from '../../src/config.ts';

/**
 * The virtual wing's own settings (SIM_*): the simulator's vehicles and the simulated polled
 * API. The service's configuration (src/config.ts) does not know them: the wing reads them from
 * the same environment when it is loaded (SIMULATOR=on), and `.env.example` lists them after the
 * service's (scripts/env-example.ts).
 */

/** The simulator clock (SIM_CLOCK), parsed. `scaled` runs `factor` times faster from `anchor`. */
export type SimClockSetting =
  | { kind: 'real' }
  | { kind: 'fixed'; at: Date }
  | { kind: 'scaled'; factor: number; anchor: Date };

const simClock: Parser<SimClockSetting> = (raw, name) => {
  const v = raw.trim();
  const instant = (text: string): Date => {
    const d = new Date(text);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(d.getTime())) {
      throw new ConfigError(name, `needs an ISO 8601 instant such as 2026-11-25T02:30:00Z, got "${text}"`);
    }
    return d;
  };
  if (v === 'real') return { kind: 'real' };
  if (v.startsWith('fixed:')) return { kind: 'fixed', at: instant(v.slice('fixed:'.length)) };
  const scaled = /^scaled:([^@]+)@(.+)$/.exec(v);
  if (scaled) {
    const factor = Number(scaled[1]);
    if (!Number.isFinite(factor) || factor <= 0) {
      throw new ConfigError(name, `needs a positive speed-up factor in scaled:<factor>@<ISO instant>, got "${scaled[1]}"`);
    }
    return { kind: 'scaled', factor, anchor: instant(scaled[2]!) };
  }
  throw new ConfigError(name, `must be real, fixed:<ISO instant> or scaled:<factor>@<ISO instant>, got "${raw}"`);
};

/** The table of the wing's settings. The key is the environment variable. */
export const SIM_DEFINITIONS = {
  SIM_CLOCK: def('real', simClock, 'Simulator clock: real, fixed:<ISO instant>, or scaled:<factor>@<ISO instant> (time runs factor times faster from that instant, anchored at process start).'),
  SIM_UTC_OFFSET_MINUTES: def('0', int(-720, 840), 'Offset from UTC of the virtual vehicles\' schedules (their hours are UTC by default).'),
  SIM_TICK_MS: def('5000', int(10), 'Wall-clock time between two simulator publishing rounds.'),
  SIM_MAX_CATCHUP_MINUTES: def('60', int(1, 10080), 'Most simulated minutes one round publishes per vehicle; older missed minutes are skipped.'),
  SIM_FLEET_SIZE: def('0', int(0, 1000000), 'Extra generated virtual vehicles for load tests.'),
  SIM_FLEET_RATE: def('2000', int(0), 'Most MQTT messages per second the simulator publishes (0: unlimited).'),
  SIM_MAX_INFLIGHT: def('200', int(1, 100000), 'Most simulator publishes awaiting their PUBACK at once.'),
  SIM_POLL_BACKFILL_MINUTES: def('60', int(1, 10080), 'The simulated polled API (kestrel): a vehicle\'s first page starts this many simulated minutes back.'),
  SIM_POLL_ERROR_RATE: def('0.02', fraction, 'The simulated polled API answers this share of page requests with a 503 (0: never).'),
  SIM_POLL_SLOW_RATE: def('0.02', fraction, 'The simulated polled API holds this share of page requests for SIM_POLL_SLOW_MS before answering (0: never).'),
  SIM_POLL_SLOW_MS: def('3000', int(0, 600000), 'How long a slow answer of the simulated polled API takes.'),
};

export type SimSettings = SettingsOf<typeof SIM_DEFINITIONS>;

/** Reads the wing's settings from an environment (default: process.env). Throws ConfigError. */
export function loadSimSettings(env: NodeJS.ProcessEnv = process.env): SimSettings {
  return readSettings(SIM_DEFINITIONS, env);
}
