import type { Logger } from './logger.ts';
import type { Running } from './running.ts';

export interface Periodic<T> extends Running {
  /** Runs once now (the timer calls it too); a call during a run shares that run's result. */
  runOnce(): Promise<T>;
}

/**
 * A housekeeping job run every `intervalMs` and once right at start: one run at a time in this
 * process, a failing run logged and tried again at the next interval, and a timer that never
 * keeps the process alive on its own. `run` is told when the job is being closed, so a long
 * run can stop early. close() waits for the run in progress.
 */
export function startPeriodic<T>(opts: {
  name: string;
  intervalMs: number;
  logger: Logger;
  /** What the log says when a run fails. */
  failure: string;
  run: (closing: () => boolean) => Promise<T>;
}): Periodic<T> {
  let running: Promise<T> | undefined;
  let closed = false;
  const runOnce = (): Promise<T> => {
    if (running) return running;
    const p = opts.run(() => closed).finally(() => {
      if (running === p) running = undefined;
    });
    running = p;
    return p;
  };
  const tick = () => {
    if (closed || running) return;
    runOnce().catch((err: unknown) => opts.logger.warn({ err: (err as Error).message }, opts.failure));
  };
  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  setImmediate(tick);
  return {
    name: opts.name,
    runOnce,
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
