import type { PollJob } from '../../queues/poll-job.ts';
import type { PageOutcome } from './api-client.ts';

/** What to do with a vehicle's job after one poll: poll again after `delayMs`, with this state. */
export interface NextPoll {
  delayMs: number;
  job: PollJob;
}

export interface ScheduleSettings {
  /** The manifest's intervalS (or POLL_INTERVAL_S), in ms: between two polls once caught up. */
  intervalMs: number;
  /** First back-off after a failure; doubles with every failure in a row. */
  backoffBaseMs: number;
  /** POLL_BACKOFF_MAX_S, in ms. */
  backoffMaxMs: number;
}

/** The back-off after `failures` failed polls in a row (1, 2, 4, ... times the base, capped). */
export function backoffMs(failures: number, s: Pick<ScheduleSettings, 'backoffBaseMs' | 'backoffMaxMs'>): number {
  return Math.min(s.backoffMaxMs, s.backoffBaseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

/**
 * The next poll after an outcome. A page (accepted by then) moves the cursor on: at once when
 * more is waiting, after the interval when caught up. A wait keeps everything and comes back
 * when told. A failure keeps the cursor and backs off; a vehicle not shared is asked again
 * after the interval (it may be shared later).
 */
export function nextPoll(job: PollJob, outcome: PageOutcome, s: ScheduleSettings): NextPoll {
  switch (outcome.kind) {
    case 'page':
      return { delayMs: outcome.hasMore ? 0 : s.intervalMs, job: { ...job, cursor: outcome.nextCursor, failures: 0 } };
    case 'wait':
      return { delayMs: outcome.ms, job };
    case 'not-shared':
      return { delayMs: s.intervalMs, job: { ...job, failures: 0 } };
    case 'failed':
    case 'bad-page': {
      const failures = job.failures + 1;
      return { delayMs: backoffMs(failures, s), job: { ...job, failures } };
    }
  }
}
