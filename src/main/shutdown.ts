import type { Logger } from '../logger.ts';

export interface ShutdownOptions {
  logger: Logger;
  /** SHUTDOWN_TIMEOUT_MS: past it the process exits with code 1 whatever is still running. */
  timeoutMs: number;
  /** Stops taking work, finishes what is in flight, closes connections. */
  stop: () => Promise<void>;
  /** process.exit, replaceable in tests. */
  exit?: (code: number) => void;
  /** The signals that trigger it (default SIGTERM and SIGINT; tests pass none). */
  signals?: NodeJS.Signals[];
}

export interface Shutdown {
  /**
   * Starts the shutdown (what SIGTERM and SIGINT do); later calls share the first one. The
   * process exits with `exitCode` (default 0) once everything stopped.
   */
  trigger(reason: string, exitCode?: number): Promise<void>;
  readonly stopping: boolean;
}

/**
 * Graceful shutdown on SIGTERM (orchestrators, `docker stop`) and SIGINT (Ctrl-C): run `stop`
 * once, then exit 0; exit 1 when it fails or takes longer than `timeoutMs`. A job cut off by
 * that timeout is not lost: its BullMQ lock runs out and another worker runs it again (stalled).
 * A second signal does not cut the drain short; the timeout bounds it.
 */
export function installShutdown(opts: ShutdownOptions): Shutdown {
  const { logger, timeoutMs } = opts;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let done: Promise<void> | undefined;

  const trigger = (reason: string, exitCode = 0): Promise<void> => {
    if (done) {
      logger.info({ reason }, 'already shutting down');
      return done;
    }
    logger.info({ reason, timeoutMs }, 'shutting down: no new work, finishing what is in flight');
    const started = Date.now();
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'graceful shutdown timed out; exiting');
      exit(1);
    }, timeoutMs);
    timer.unref();
    done = opts.stop().then(
      () => {
        clearTimeout(timer);
        logger.info({ ms: Date.now() - started }, 'shut down');
        exit(exitCode);
      },
      (err: unknown) => {
        clearTimeout(timer);
        logger.error({ err }, 'error during shutdown');
        exit(1);
      },
    );
    return done;
  };

  const onSignal = (signal: NodeJS.Signals) => void trigger(signal);
  for (const signal of opts.signals ?? ['SIGTERM', 'SIGINT']) process.on(signal, onSignal);
  return {
    trigger,
    get stopping() {
      return done !== undefined;
    },
  };
}
