/**
 * Time as the service sees it. Everything time-dependent (code expiry, rate-limit windows,
 * webhook timestamps, the simulator) reads it from an injected Clock, so tests set the time
 * instead of sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to. For tests. */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date | string | number = '2026-01-01T00:00:00.000Z') {
    this.ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  set(to: Date | string | number): void {
    this.ms = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
