import { Worker, type Processor, type WorkerOptions } from 'bullmq';
import { bullConnection } from './bull-connection.ts';
import type { QueueName } from './keys.ts';
import { bullName, type QueueHome } from './open-queue.ts';

export interface OpenWorkerOptions {
  /** The partition of a partitioned queue (default 0). */
  partition?: number;
  /** Jobs run at once by this worker. */
  concurrency: number;
  /** BullMQ's other settings of the worker: its lock, its stall checks, its backoff. */
  settings?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun'>;
  /**
   * Told about the worker's errors (a lost connection, a lost lock). Without it they are only
   * listened to: an unlistened 'error' event would crash the process.
   */
  onError?: (err: Error) => void;
}

/**
 * A BullMQ worker that knows whether it ever reached Redis, and whose close does not wait for
 * a connection it never got: it then has nothing in flight, and BullMQ's plain close would wait.
 */
class OwnedWorker<Data, Result> extends Worker<Data, Result, string> {
  private reached = false;

  constructor(name: string, processor: Processor<Data, Result, string>, opts: WorkerOptions) {
    super(name, processor, opts);
    this.once('ready', () => (this.reached = true));
  }

  override close(force = false): Promise<void> {
    return super.close(force || !this.reached);
  }
}

/**
 * The one way a worker is opened, beside ./open-queue.ts's openQueue: on the queue's partition
 * in this home (its BullMQ name with the hash tag), with the workers' connection
 * (./bull-connection.ts). It connects on its own once Redis answers; nothing awaits that, so a
 * process can open its port (liveness) while Redis is still down.
 */
export function openWorker<Data = unknown, Result = unknown>(
  queue: QueueName,
  home: QueueHome,
  processor: Processor<Data, Result, string>,
  opts: OpenWorkerOptions,
): Worker<Data, Result, string> {
  const worker = new OwnedWorker<Data, Result>(bullName(home, queue, opts.partition ?? 0), processor, {
    ...opts.settings,
    connection: bullConnection(home.redisUrl, 'worker'),
    prefix: home.prefix,
    concurrency: opts.concurrency,
  });
  worker.on('error', opts.onError ?? (() => {}));
  return worker;
}
