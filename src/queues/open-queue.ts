import { Queue, type DefaultJobOptions } from 'bullmq';
import { bullConnection } from './bull-connection.ts';

/** Where queues live: the Redis URL and the key prefix (QUEUE_PREFIX) every queue shares. */
export interface QueueHome {
  redisUrl: string;
  prefix: string;
}

export interface OpenQueueOptions {
  /** `producer` (default) fails fast when Redis is down; `client` is a short-lived handle. */
  purpose?: 'producer' | 'client';
  defaultJobOptions?: DefaultJobOptions;
  /**
   * Told about connection errors. Without it they are only listened to: a failure surfaces on
   * the command that failed, and an unlistened 'error' event would crash the process.
   */
  onError?: (err: Error) => void;
}

/** The one way a queue is opened (renewed with ./renewing-queue.ts, closed with ./close-queue.ts). */
export function openQueue<DataType = unknown>(name: string, home: QueueHome, opts: OpenQueueOptions = {}): Queue<DataType, unknown, string> {
  const queue = new Queue<DataType, unknown, string>(name, {
    connection: bullConnection(home.redisUrl, opts.purpose ?? 'producer'),
    prefix: home.prefix,
    ...(opts.defaultJobOptions ? { defaultJobOptions: opts.defaultJobOptions } : {}),
  });
  queue.on('error', opts.onError ?? (() => {}));
  return queue;
}

/** The queue home of a process's services (its Redis and QUEUE_PREFIX). */
export function queueHome(s: { redisUrl: string; config: { QUEUE_PREFIX: string } }): QueueHome {
  return { redisUrl: s.redisUrl, prefix: s.config.QUEUE_PREFIX };
}
