import { AsyncLocalStorage } from 'node:async_hooks';
import type { Scheduler } from 'fast-check';
import type { Store } from '../../src/store/contract.ts';

/** One store call as it reached the database: who made it and which repo method. */
export interface TracedCall {
  actor: string;
  /** `repo.method`, e.g. `consents.transition`. */
  op: string;
  args: unknown[];
}

/**
 * Scheduling points around the real store, for `fc.scheduler()` race tests, which find
 * orderings a plain run would almost never hit. Nothing is mocked: every repo call of a wrapped store still runs the real
 * engine, but the scheduler decides when the call reaches the database and when its answer
 * reaches the caller, so a property run explores one interleaving of the racing code paths.
 * fast-check's `scheduleFunction` starts the call at once and delays only the answer; with
 * SQLite (synchronous underneath) that would fix the database order to the call order, so the
 * call itself is also held back (`schedule` before, `schedule` of the answer after).
 *
 * The trace lists the calls in the order they reached the database, each tagged with the actor
 * (`as`) that made it through AsyncLocalStorage, so a property can say "the read's consent
 * check ran before the revoke's update" rather than guess from timing. A failing run prints its
 * seed and path (replay with `fc.assert(..., { seed, path })`) and the scheduler's own
 * `schedulerFor` ordering.
 */
export interface RaceLab {
  /** A store whose repo calls are scheduling points while a run is on (else straight through). */
  wrap(store: Store): Store;
  /** Starts a run: clears the trace and routes wrapped calls through `s`. */
  begin(s: Scheduler): void;
  /** Ends a run: wrapped calls go straight through again. */
  end(): void;
  /** Runs `fn` as `actor`: its store calls are traced under that name. */
  as<T>(actor: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Resolves once `n` calls have reached the database in this run. The scheduler only orders
   * what is pending: while one path waits on unscheduled I/O (Redis, HTTP) the other runs ahead,
   * so a path that must be able to start part-way through another awaits this first.
   */
  afterCalls(n: number): Promise<void>;
  readonly trace: readonly TracedCall[];
  /** Index in the trace of the first call of `actor` with this op; -1 if none. */
  at(actor: string, op: string): number;
  /** Index in the trace of the actor's first call (when it started to matter); -1 if none. */
  first(actor: string): number;
  /** Index in the trace of the actor's last call; -1 if none. */
  last(actor: string): number;
}

const noValue = (): undefined => undefined;

export function createRaceLab(): RaceLab {
  const actors = new AsyncLocalStorage<string>();
  const trace: TracedCall[] = [];
  let scheduler: Scheduler | null = null;
  let waiters: { n: number; resolve: () => void }[] = [];
  const record = (call: TracedCall) => {
    trace.push(call);
    waiters = waiters.filter((w) => (trace.length >= w.n ? (w.resolve(), false) : true));
  };

  function scheduled(op: string, real: (...a: unknown[]) => Promise<unknown>) {
    return async (...args: unknown[]) => {
      const s = scheduler;
      const actor = actors.getStore() ?? '-';
      if (!s) return real(...args);
      await s.schedule(Promise.resolve(), `${actor} ${op}`);
      record({ actor, op, args });
      const answer = (async () => real(...args))();
      // The answer waits for its own turn; the report (the schedulerFor ordering printed on a
      // failure) names the call without dumping the records it returned.
      await s.schedule(answer.then(noValue, noValue), `${actor} ${op} answered`);
      return answer;
    };
  }

  /** A proxy, so repos written as classes (MongoDB) are wrapped as well as plain objects. */
  const wrapRepo = (repoName: string, repo: object): object =>
    new Proxy(repo, {
      get(target, prop, receiver) {
        const member: unknown = Reflect.get(target, prop, receiver);
        if (typeof member !== 'function' || typeof prop !== 'string') return member;
        return scheduled(`${repoName}.${prop}`, (...args) => (member as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      },
    });

  return {
    wrap(store) {
      const repos = new Map<string, object>();
      return new Proxy(store, {
        get(target, prop, receiver) {
          const member: unknown = Reflect.get(target, prop, receiver);
          // purgeErased, ping and close stay direct: no race tested here goes through them.
          if (typeof member !== 'object' || member === null || typeof prop !== 'string') return member;
          let repo = repos.get(prop);
          if (!repo) repos.set(prop, (repo = wrapRepo(prop, member)));
          return repo;
        },
      });
    },
    begin(s) {
      trace.length = 0;
      waiters = [];
      scheduler = s;
    },
    end() {
      scheduler = null;
    },
    as: (actor, fn) => actors.run(actor, fn),
    afterCalls: (n) => (trace.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    trace,
    at: (actor, op) => trace.findIndex((c) => c.actor === actor && c.op === op),
    first: (actor) => trace.findIndex((c) => c.actor === actor),
    last: (actor) => trace.findLastIndex((c) => c.actor === actor),
  };
}
