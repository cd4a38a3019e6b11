import type { Queue } from 'bullmq';
import type { QueueName } from '../../src/queues/keys.ts';
import { openQueue } from '../../src/queues/open-queue.ts';

/**
 * A test's handle on one of the service's queues (a partition of it), under the service's own
 * names (src/queues/keys.ts) and on its own connection, which closing the queue closes (on a
 * cluster too). Commands fail after one retry, as the service's short-lived handles do.
 */
export function openTestQueue<DataType = unknown>(home: { redisUrl: string; prefix: string }, queue: QueueName, partition = 0): Queue<DataType, unknown, string> {
  return openQueue<DataType>(queue, { redisUrl: home.redisUrl, prefix: home.prefix }, { purpose: 'client', partition });
}
