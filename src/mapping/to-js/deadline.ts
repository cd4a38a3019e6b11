/**
 * MAPPING_TIMEOUT_MS inside a compiled run. The compiled code is synchronous, so the limit
 * cannot be checked after the run (a nested path over a few hundred items can take minutes):
 * every loop charges the work it does here, and every few thousand units the clock is read. At
 * the deadline the run stops with JSONata's own timeout error (D1012), not a hand-over: the
 * interpreter would only take longer to reach the same end.
 *
 * One run at a time: a compiled run never yields and never starts another, so the state is
 * the module's.
 */

/** Units of work (items visited, values copied) between two readings of the clock. */
const CHECK_EVERY = 2048;

let deadline = Infinity;
let credit = CHECK_EVERY;

/** A compiled run that reached MAPPING_TIMEOUT_MS; ../compile.ts turns it into D1012. */
export class RunTimedOut extends Error {
  constructor() {
    super('the compiled run reached MAPPING_TIMEOUT_MS');
    this.name = 'RunTimedOut';
  }
}

/** Starts the clock of a run: `timeoutMs` 0 is no limit. */
export function startRun(timeoutMs: number): void {
  deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Infinity;
  credit = CHECK_EVERY;
}

/** Whether the run is past its deadline (read once it returned). */
export function pastDeadline(): boolean {
  return performance.now() > deadline;
}

/** Charges `units` of work; throws RunTimedOut past the deadline. */
export function charge(units = 1): void {
  credit -= units;
  if (credit > 0) return;
  credit = CHECK_EVERY;
  if (performance.now() > deadline) throw new RunTimedOut();
}
