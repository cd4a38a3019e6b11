import { Queue, type BulkJobOptions, type DefaultJobOptions, type Job, type JobsOptions } from 'bullmq';
import { bullKey, bullQueueName, type QueueName } from './keys.ts';
import { createRedisClient, type RedisClient } from './redis.ts';
import { awaitReplicas } from './replicas.ts';

/**
 * Where queues live: the Redis address, the key prefix (QUEUE_PREFIX) every queue shares, and
 * how many replicas a job must reach before an add resolves (REDIS_WAIT_REPLICAS).
 */
export interface QueueHome {
  redisUrl: string;
  prefix: string;
  /** Replicas to wait for after each add (0 or absent: none), at most `waitTimeoutMs`. */
  waitReplicas?: number;
  waitTimeoutMs?: number;
}

export interface OpenQueueOptions {
  /** `producer` (default) fails fast when Redis is down; `client` is a short-lived handle. */
  purpose?: 'producer' | 'client';
  /** The partition of a partitioned queue (default 0). */
  partition?: number;
  defaultJobOptions?: DefaultJobOptions;
  /**
   * Told about connection errors. Without it they are only listened to: a failure surfaces on
   * the command that failed, and an unlistened 'error' event would crash the process.
   */
  onError?: (err: Error) => void;
}

/** The BullMQ name of a queue's partition in this home (src/queues/keys.ts). */
export function bullName(home: QueueHome, queue: QueueName, partition = 0): string {
  return bullQueueName(home.prefix, queue, partition);
}

/** The BullMQ names of every partition of a queue. */
export function partitionNames(home: QueueHome, queue: QueueName, partitions: number): string[] {
  return Array.from({ length: partitions }, (_, p) => bullName(home, queue, p));
}

/**
 * A BullMQ queue on a connection of its own, which it closes with itself (BullMQ leaves a
 * connection it was handed open), and whose adds resolve only once the job reached the
 * replicas the home asks for: the acknowledgements that follow an add (PUBACK, 202) then hold
 * through a failover of the master.
 */
class OwnedQueue extends Queue<unknown, unknown, string> {
  private shut = false;

  constructor(
    name: string,
    opts: ConstructorParameters<typeof Queue<unknown, unknown, string>>[1],
    private readonly connection: RedisClient,
    private readonly home: QueueHome,
  ) {
    super(name, opts);
  }

  override async add(name: string, data: unknown, opts?: JobsOptions): Promise<Job<unknown, unknown, string>> {
    this.refuseWhenShut();
    const job = await super.add(name, data, opts);
    await this.replicated();
    return job;
  }

  override async addBulk(jobs: { name: string; data: unknown; opts?: BulkJobOptions }[]): Promise<Job<unknown, unknown, string>[]> {
    this.refuseWhenShut();
    const added = await super.addBulk(jobs);
    await this.replicated();
    return added;
  }

  override async close(): Promise<void> {
    this.shut = true;
    try {
      await super.close();
    } finally {
      this.connection.disconnect();
    }
  }

  override async disconnect(): Promise<void> {
    this.shut = true;
    try {
      await super.disconnect();
    } finally {
      this.connection.disconnect();
    }
  }

  /**
   * A closed queue refuses at once: a cluster connection closed while it was still being set up
   * would leave an add waiting for ever on the set-up that never ends.
   */
  private refuseWhenShut(): void {
    if (this.shut) throw new Error('Connection is closed.');
  }

  private async replicated(): Promise<void> {
    const replicas = this.home.waitReplicas ?? 0;
    // Any key of the queue: they share its hash tag, so its master.
    if (replicas > 0) await awaitReplicas(this.connection, bullKey(this.home.prefix, this.name, 'meta'), replicas, this.home.waitTimeoutMs ?? 1000);
  }
}

/**
 * The one way a queue is opened (renewed with ./renewing-queue.ts, closed with ./close-queue.ts).
 * `queue` is the logical name; the BullMQ name carries the partition's hash tag where one is needed.
 */
export function openQueue<DataType = unknown>(queue: QueueName, home: QueueHome, opts: OpenQueueOptions = {}): Queue<DataType, unknown, string> {
  // Reconnecting backs off to at most 2 s, not BullMQ's 20 s: while a queue is unreachable,
  // publishers are refused and API calls answered 503, so it should be noticed soon after Redis is back.
  const connection = createRedisClient(home.redisUrl, opts.purpose ?? 'producer', { retryStrategy: (times: number) => Math.min(250 * times, 2000) });
  // BullMQ forwards the connection's errors to the queue while it holds it; this one stays for
  // after (an error emitted with no listener would crash the process).
  connection.on('error', () => {});
  const q = new OwnedQueue(
    bullName(home, queue, opts.partition ?? 0),
    {
      connection,
      prefix: home.prefix,
      ...(opts.defaultJobOptions ? { defaultJobOptions: opts.defaultJobOptions } : {}),
    },
    connection,
    home,
  );
  q.on('error', opts.onError ?? (() => {}));
  // The job data's type is the caller's promise; BullMQ stores whatever JSON it is given.
  return q as unknown as Queue<DataType, unknown, string>;
}

/** The queue home of a process's services (its Redis, QUEUE_PREFIX and REDIS_WAIT_REPLICAS). */
export function queueHome(s: { redisUrl: string; config: { QUEUE_PREFIX: string; REDIS_WAIT_REPLICAS?: number; REDIS_WAIT_TIMEOUT_MS?: number } }): QueueHome {
  return {
    redisUrl: s.redisUrl,
    prefix: s.config.QUEUE_PREFIX,
    ...(s.config.REDIS_WAIT_REPLICAS ? { waitReplicas: s.config.REDIS_WAIT_REPLICAS, waitTimeoutMs: s.config.REDIS_WAIT_TIMEOUT_MS ?? 1000 } : {}),
  };
}
