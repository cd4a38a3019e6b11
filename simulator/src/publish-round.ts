import type { Logger } from '../../src/logger.ts';
import type { BoundedPublisher } from './bounded-publisher.ts';
import { eventsBetween, lastEventsBefore } from './events.ts';
import { eventTopic, pastEventTopic, telemetryTopic } from './raw-format.ts';
import { sample, type SimZone } from './sample.ts';
import type { SimClock } from './sim-clock.ts';
import { MINUTE_MS } from './time-grid.ts';
import type { Vehicle } from './vehicle.ts';

export interface RoundResult {
  /** Grid minutes published in this round (per vehicle). */
  minutes: number;
  /** Minutes skipped because they exceeded SIM_MAX_CATCHUP_MINUTES. */
  skipped: number;
  telemetry: number;
  events: number;
}

/**
 * Publishing rounds. Each round publishes, for every vehicle, the samples of the simulated
 * grid minutes that elapsed since the last round (at most `maxCatchupMinutes`; older ones are
 * skipped so a long stall or a fast scaled clock never builds an unbounded backlog) and the
 * events of the interval since the last round. The first round publishes each vehicle's last
 * events from before the start (as past events), the current minute and the events at the
 * start instant. Behaviour itself lives in sample/eventsBetween; the only
 * state here is how far publishing got.
 */
export class PublishRounds {
  private lastMinute: number | undefined;
  private lastEventMs: number | undefined;

  constructor(
    private readonly vehicles: readonly Vehicle[],
    private readonly publisher: BoundedPublisher,
    private readonly clock: SimClock,
    private readonly zone: SimZone,
    private readonly maxCatchupMinutes: number,
    private readonly logger: Logger,
  ) {}

  async round(): Promise<RoundResult> {
    const now = this.clock.now();
    const current = Math.floor(now / MINUTE_MS);
    let first = this.lastMinute === undefined ? current : this.lastMinute + 1;
    let skipped = 0;
    if (current - first + 1 > this.maxCatchupMinutes) {
      skipped = current - this.maxCatchupMinutes + 1 - first;
      first = current - this.maxCatchupMinutes + 1;
      this.logger.warn({ skipped, maxCatchupMinutes: this.maxCatchupMinutes }, 'simulator fell behind; skipping old simulated minutes');
    }
    const starting = this.lastEventMs === undefined;
    // The first round's live events are those from its start on: earlier ones are not news.
    const eventsFrom = Math.max(this.lastEventMs ?? now - 1, first * MINUTE_MS - 1);
    const result: RoundResult = { minutes: Math.max(0, current - first + 1), skipped, telemetry: 0, events: 0 };

    // Starting: each vehicle reports its last event of each type from before the start, as
    // past events (stored as latest values, never pushed), so it starts in its state.
    if (starting) {
      for (const v of this.vehicles) {
        for (const e of lastEventsBefore(v, now, this.zone)) {
          await this.publisher.publish(pastEventTopic(v.vin), JSON.stringify(e));
          result.events++;
        }
      }
    }

    // Events first: they are sent "the moment they happen", the samples of the minute follow.
    if (now > eventsFrom) {
      for (const v of this.vehicles) {
        for (const e of eventsBetween(v, eventsFrom, now, this.zone)) {
          await this.publisher.publish(eventTopic(v.vin), JSON.stringify(e));
          result.events++;
        }
      }
      this.lastEventMs = now;
    }
    for (let minute = first; minute <= current; minute++) {
      for (const v of this.vehicles) {
        await this.publisher.publish(telemetryTopic(v.vin), JSON.stringify(sample(v, minute * MINUTE_MS, this.zone)));
        result.telemetry++;
      }
      this.lastMinute = minute;
    }
    return result;
  }
}
