import type { Logger } from './logger.ts';
import { metrics } from './metrics/metrics.ts';
import type { Running } from './running.ts';

export interface Periodic<T> extends Running {
  /** Runs once now (the timer calls it too); a call during a run shares that run's result. */
  runOnce(): Promise<T>;
}

/**
 * Who calls a periodic job. Without one, a timer in this process (every `intervalMs` and once
 * at start). An installation-wide scheduler (src/queues/installation-schedule.ts) calls each
 * job in one process per interval, whichever of the processes that registered it is free, so
 * housekeeping runs once for the whole installation, not once per process.
 */
export interface PeriodicScheduler {
  /** Calls `tick` once per interval in one process of those that registered `name`. */
  register(name: string, intervalMs: number, tick: () => Promise<void>): { close(): Promise<void> };
}

/**
 * A housekeeping job run every `intervalMs` and once right at start: one run at a time in this
 * process, a failing run logged and tried again at the next interval, and a timer that never
 * keeps the process alive on its own. `run` is told when the job is being closed, so a long
 * run can stop early. close() waits for the run in progress. With a `scheduler`, the scheduler
 * decides when (and in which process) it runs.
 */
export function startPeriodic<T>(opts: {
  name: string;
  intervalMs: number;
  logger: Logger;
  /** What the log says when a run fails. */
  failure: string;
  run: (closing: () => boolean) => Promise<T>;
  scheduler?: PeriodicScheduler;
}): Periodic<T> {
  let running: Promise<T> | undefined;
  let closed = false;
  const runOnce = (): Promise<T> => {
    if (running) return running;
    metrics.periodicRuns.inc({ job: opts.name });
    const p = opts.run(() => closed).finally(() => {
      if (running === p) running = undefined;
    });
    running = p;
    return p;
  };
  const logged = (p: Promise<T>) => p.then(
    () => undefined,
    (err: unknown) => opts.logger.warn({ err: (err as Error).message }, opts.failure),
  );
  let stop: () => Promise<void>;
  if (opts.scheduler) {
    const handle = opts.scheduler.register(opts.name, opts.intervalMs, () => (closed ? Promise.resolve() : logged(runOnce())));
    stop = () => handle.close();
  } else {
    const tick = () => {
      if (closed || running) return;
      void logged(runOnce());
    };
    const timer = setInterval(tick, opts.intervalMs);
    timer.unref();
    setImmediate(tick);
    stop = async () => clearInterval(timer);
  }
  return {
    name: opts.name,
    runOnce,
    async close() {
      closed = true;
      await stop();
      await running?.catch(() => undefined);
    },
  };
}
