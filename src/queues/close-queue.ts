import type { Queue } from 'bullmq';

/**
 * Closes a BullMQ queue. Its close() sends QUIT on the producer connection; while that
 * connection is down (Redis restarted a moment ago) the command fails at once ("Stream isn't
 * writeable ...": producers have no offline queue) although nothing is left to close, and a
 * graceful shutdown then exited 1. In that case the connection is dropped instead.
 */
export async function closeQueue(queue: Pick<Queue, 'close' | 'disconnect'>): Promise<void> {
  try {
    await queue.close();
  } catch (err) {
    if (!/Stream isn't writeable/.test((err as Error | undefined)?.message ?? '')) throw err;
    await queue.disconnect().catch(() => undefined);
  }
}
