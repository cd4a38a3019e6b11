import { createRequire } from 'node:module';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * One worker thread that runs jobs one at a time, each under a deadline, in a heap of its own:
 * code that may never end or may eat memory (a mapping an operator is typing, JSONata's `$sort`
 * of a long list, a backtracking regular expression) runs there, and the process's event loop
 * (the API, the broker, the pipeline, push) never waits for it.
 *
 * - A job still running at its deadline: the thread is terminated (`terminate()` stops even a
 *   synchronous loop) and the job fails with ThreadStopped (`reason: 'time'`).
 * - A thread over its `resourceLimits` is ended by V8 (ERR_WORKER_OUT_OF_MEMORY): the job fails
 *   with ThreadStopped (`reason: 'memory'`). Any other death of the thread fails its job too.
 * - The next job starts a new thread. Its start (loading modules, the catalog) is not counted in
 *   any job's deadline: the thread says when it is ready.
 * - Jobs wait their turn; past `maxWaiting`, a new job fails at once (ThreadBusy).
 *
 * The entry module (`entry`, a file URL) calls {@link serveJobs}. Running from TypeScript
 * sources (tsx, vitest), the thread registers tsx's loader before importing it; the compiled
 * build (dist/) imports the JavaScript directly.
 */
export interface ThreadRunnerOptions {
  /** The thread's module, ending in .ts (sources) or .js (the build). */
  entry: URL;
  /** Passed to the entry's setup, once per thread. */
  setup: unknown;
  resourceLimits: ResourceLimits;
  /** Longest a thread may take to become ready (load its modules) before its job fails. */
  startTimeoutMs?: number;
  maxWaiting?: number;
  /** Called when a thread is stopped or dies (for a log line). */
  onStopped?: (reason: string) => void;
}

export class ThreadStopped extends Error {
  constructor(
    readonly reason: 'time' | 'memory' | 'crash',
    detail: string,
  ) {
    super(detail);
    this.name = 'ThreadStopped';
  }
}

export class ThreadBusy extends Error {
  constructor() {
    super('too many runs are waiting for the sandbox thread');
    this.name = 'ThreadBusy';
  }
}

export interface ThreadRunner<J, R> {
  /** Runs one job in the thread; rejects with ThreadStopped or ThreadBusy, or the job's own error. */
  run(job: J, deadlineMs: number): Promise<R>;
  /** Terminates the thread; waiting jobs fail. */
  close(): Promise<void>;
}

interface Pending<J, R> {
  job: J;
  deadlineMs: number;
  resolve(value: R): void;
  reject(err: Error): void;
}

/** What the thread posts: readiness, or a job's answer. */
type Answer<R> = { ready: true } | { ok: true; result: R } | { ok: false; message: string };

const BOOT_FROM_SOURCES = `
const { workerData } = require('node:worker_threads');
require(workerData.tsx).register();
import(workerData.entry).catch((err) => { throw err; });
`;

function threadFor(entry: URL, setup: unknown, resourceLimits: ResourceLimits): Worker {
  const workerData = { setup, entry: entry.href, tsx: '' };
  // execArgv: [] so that the parent's loader flags (tsx's, vitest's) do not apply twice.
  if (entry.pathname.endsWith('.ts')) {
    workerData.tsx = createRequire(import.meta.url).resolve('tsx/esm/api');
    return new Worker(BOOT_FROM_SOURCES, { eval: true, execArgv: [], workerData, resourceLimits });
  }
  return new Worker(entry, { execArgv: [], workerData, resourceLimits });
}

export function createThreadRunner<J, R>(opts: ThreadRunnerOptions): ThreadRunner<J, R> {
  const queue: Pending<J, R>[] = [];
  const maxWaiting = opts.maxWaiting ?? 16;
  let worker: Worker | undefined;
  let ready: Promise<void> | undefined;
  let busy = false;
  let closed = false;

  /** Ends the thread; the next job starts another. */
  const discard = (): void => {
    const w = worker;
    worker = undefined;
    ready = undefined;
    if (w) {
      w.removeAllListeners();
      // An error after this (the thread's last words) has nobody to tell.
      w.on('error', () => undefined);
      void w.terminate();
    }
  };

  const start = (): Promise<void> => {
    if (ready) return ready;
    const w = threadFor(opts.entry, opts.setup, opts.resourceLimits);
    // The thread never keeps the process alive on its own: close() ends it, exit does too.
    w.unref();
    worker = w;
    ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        discard();
        reject(new ThreadStopped('crash', `the sandbox thread did not start within ${opts.startTimeoutMs ?? 120_000} ms`));
      }, opts.startTimeoutMs ?? 120_000);
      w.once('message', (m: Answer<R>) => {
        clearTimeout(timer);
        if ('ready' in m) resolve();
        else reject(new ThreadStopped('crash', 'the sandbox thread answered before it was ready'));
      });
      w.once('error', (err) => {
        clearTimeout(timer);
        discard();
        reject(new ThreadStopped('crash', `the sandbox thread failed to start: ${err.message}`));
      });
      w.once('exit', (code) => {
        clearTimeout(timer);
        if (worker === w) discard();
        reject(new ThreadStopped('crash', `the sandbox thread exited (code ${code}) while starting`));
      });
    });
    // A start that fails is reported to the job that waited for it; nobody else awaits this.
    ready.catch(() => undefined);
    return ready;
  };

  const runOne = async (p: Pending<J, R>): Promise<R> => {
    await start();
    const w = worker!;
    return new Promise<R>((resolve, reject) => {
      const finish = (err: Error | null, value?: R): void => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
        if (err) reject(err);
        else resolve(value as R);
      };
      const stop = (reason: ThreadStopped): void => {
        opts.onStopped?.(reason.message);
        discard();
        finish(reason);
      };
      const onMessage = (m: Answer<R>): void => {
        if ('ready' in m) return;
        if (m.ok) finish(null, m.result);
        else finish(new Error(m.message));
      };
      const onError = (err: Error & { code?: string }): void => {
        const memory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
        stop(new ThreadStopped(memory ? 'memory' : 'crash', memory ? `the run used more than ${opts.resourceLimits.maxOldGenerationSizeMb} MB and was stopped` : `the run failed: ${err.message}`));
      };
      const onExit = (code: number): void => stop(new ThreadStopped('crash', `the sandbox thread exited (code ${code})`));
      const timer = setTimeout(() => stop(new ThreadStopped('time', `the run took longer than ${p.deadlineMs} ms and was stopped`)), p.deadlineMs);
      w.on('message', onMessage);
      w.once('error', onError);
      w.once('exit', onExit);
      w.postMessage(p.job);
    });
  };

  const next = (): void => {
    if (busy || closed) return;
    const p = queue.shift();
    if (!p) return;
    busy = true;
    runOne(p)
      .then(p.resolve, p.reject)
      .finally(() => {
        busy = false;
        next();
      });
  };

  return {
    run(job, deadlineMs) {
      if (closed) return Promise.reject(new ThreadStopped('crash', 'the sandbox is closed'));
      if (queue.length >= maxWaiting) return Promise.reject(new ThreadBusy());
      return new Promise<R>((resolve, reject) => {
        queue.push({ job, deadlineMs, resolve, reject });
        next();
      });
    },
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new ThreadStopped('crash', 'the sandbox is closed'));
      const w = worker;
      discard();
      if (w) await w.terminate().catch(() => undefined);
    },
  };
}
