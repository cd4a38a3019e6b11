import type { Queue } from 'bullmq';
import { closeQueue } from './close-queue.ts';
import type { QueueName } from './keys.ts';
import { openQueue, type QueueHome } from './open-queue.ts';
import { QueueUnavailableError } from './unavailable.ts';

const READY_TIMEOUT_MS = 2_000;

/**
 * Runs `use` with a short-lived handle on the queue (one partition of it), closed afterwards.
 * Commands fail after one retry, and a Redis that does not answer within READY_TIMEOUT_MS fails
 * the call with QueueUnavailableError instead of hanging it.
 */
export async function withQueue<T>(home: QueueHome, name: QueueName, use: (queue: Queue) => Promise<T>, partition = 0): Promise<T> {
  const queue = openQueue(name, home, { purpose: 'client', partition }) as Queue;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      queue.waitUntilReady(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new QueueUnavailableError(name)), READY_TIMEOUT_MS);
      }),
    ]);
    return await use(queue);
  } finally {
    clearTimeout(timer);
    await closeQueue(queue);
  }
}

/** {@link withQueue} on every partition in turn; the results in partition order. */
export async function withEachPartition<T>(home: QueueHome, name: QueueName, partitions: number, use: (queue: Queue, partition: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let p = 0; p < partitions; p++) out.push(await withQueue(home, name, (q) => use(q, p), p));
  return out;
}
