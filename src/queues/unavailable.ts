/**
 * Redis refused or did not answer a queue command (down, unreachable, still connecting): the
 * caller answers 503 (or withholds the PUBACK) and the client repeats. Nothing was changed.
 */
export class QueueUnavailableError extends Error {
  constructor(queue: string, cause?: unknown) {
    const why = cause === undefined ? '' : `: ${cause instanceof Error ? cause.message : String(cause)}`;
    super(`the ${queue} queue (Redis) is not reachable${why}`, cause === undefined ? undefined : { cause });
    this.name = 'QueueUnavailableError';
  }
}
