import type { PipelineContext } from './context.ts';
import { createBatcher, type Batcher } from './batcher.ts';
import { batchBytesOf, encodeBatch } from '../queues/harmonize-job.ts';
import { createHarmonizeQueue } from './queue.ts';
import type { RawMessage } from '../domain/raw-message.ts';
import { renewingQueue, type RenewingQueue } from '../queues/renewing-queue.ts';
import { harmonizePartition } from './partition-key.ts';
import { isClusterAddress } from '../queues/redis.ts';

/** Where adapters hand raw messages over: a batcher in front of each harmonize partition. */
export interface Ingest {
  /** Resolves once the message is durably queued (in a batch); rejects when Redis refused it. */
  enqueue(message: RawMessage): Promise<void>;
  /** Queues these at once, in batches of PIPELINE_BATCH_SIZE (and PIPELINE_BATCH_MAX_BYTES) per partition; resolves when all are queued. */
  enqueueNow(messages: RawMessage[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * How long a publisher's acknowledgement waits for this producer's first connection while
 * nothing says Redis is down: long enough for a busy host, where a connection can take a second
 * or more. A refused connection ends the wait at once. A cluster's first connection takes a
 * few round trips more (the seeds, the slot map, the masters).
 */
const readyTimeoutMs = (redisUrl: string) => (isClusterAddress(redisUrl) ? 10_000 : 5000);

/** One partition's producer queue and the batcher in front of it. */
interface Partition {
  queue: RenewingQueue<ReturnType<typeof createHarmonizeQueue>>;
  batcher: Batcher<RawMessage>;
}

export function createIngest(services: Pick<PipelineContext, 'adapters' | 'config' | 'secrets' | 'redisUrl' | 'readiness'>, opts: { maxWaitMs?: number } = {}): Ingest {
  const { config, secrets, adapters } = services;
  const count = config.HARMONIZE_PARTITIONS;
  const partitions: Partition[] = Array.from({ length: count }, (_, p) => {
    const queue = renewingQueue(() => createHarmonizeQueue(config, services.redisUrl, p));
    /**
     * Before its first connection a fail-fast producer refuses every command, and after it waits
     * for Redis indefinitely. Both are wrong for a publisher waiting on its acknowledgement: wait
     * for the connection until it fails or a deadline passes, then refuse (503, or no PUBACK),
     * and the sender retries.
     */
    let ready = false;
    // Batches sent together before the first connection share one wait (one error listener).
    let waiting: Promise<void> | undefined;
    const connected = (): Promise<void> | void => {
      if (ready) return;
      return (waiting ??= waitUntilConnected().finally(() => (waiting = undefined)));
    };
    const waitUntilConnected = async (): Promise<void> => {
      const q = queue.current();
      let timer: NodeJS.Timeout | undefined;
      let onError: ((err: Error) => void) | undefined;
      const refused = new Promise<never>((_, reject) => {
        onError = (err) => reject(new Error(`the queue (Redis) is not reachable: ${err.message}`));
        q.once('error', onError);
        // One more turn of the event loop before refusing: a connection already made wins.
        timer = setTimeout(() => setImmediate(() => reject(new Error('the queue (Redis) is not reachable'))), readyTimeoutMs(services.redisUrl));
      });
      try {
        await Promise.race([q.waitUntilReady(), refused]);
        ready = true;
      } finally {
        clearTimeout(timer);
        if (onError) q.off('error', onError);
      }
    };
    const batcher = createBatcher<RawMessage>({
      size: config.PIPELINE_BATCH_SIZE,
      maxWaitMs: opts.maxWaitMs ?? config.PIPELINE_BATCH_MAX_WAIT_MS,
      maxBytes: config.PIPELINE_BATCH_MAX_BYTES,
      bytesOf: batchBytesOf,
      send: async (messages) => {
        await connected();
        await queue.current().add('batch', encodeBatch(secrets, messages));
      },
    });
    return { queue, batcher };
  });
  const partitionOf = (m: RawMessage) => partitions[harmonizePartition(adapters, count, m)]!;

  // Ready means ingest is accepted: each producer's own connection reconnects on its own
  // backoff, so the shared client answering is not enough (an HTTP batch would get 503). Every
  // partition must answer: a message may go to any of them.
  services.readiness.set('ingest-queue', async () => {
    await Promise.all(partitions.map((p) => p.queue.current().getJobCounts('wait')));
  });
  return {
    enqueue: (m) => partitionOf(m).batcher.add(m),
    async enqueueNow(ms) {
      if (count === 1) return partitions[0]!.batcher.addNow(ms);
      const byPartition = new Map<Partition, RawMessage[]>();
      for (const m of ms) {
        const p = partitionOf(m);
        const list = byPartition.get(p);
        if (list) list.push(m);
        else byPartition.set(p, [m]);
      }
      await Promise.all([...byPartition].map(([p, list]) => p.batcher.addNow(list)));
    },
    async close() {
      services.readiness.delete('ingest-queue');
      await Promise.all(partitions.map((p) => p.batcher.flush()));
      await Promise.all(partitions.map((p) => p.queue.close()));
    },
  };
}
