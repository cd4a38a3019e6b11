/**
 * Thrown by a delivery attempt (./deliver.ts) to have BullMQ run the job again after `delayMs`
 * instead of at the next step of the retry schedule: the push worker's backoff strategy
 * (./worker.ts) reads the delay, and does not log it as a failure.
 */
export class RetryLaterError extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'RetryLaterError';
  }
}
