import type { Services } from '../services.ts';
import { createBatcher } from './batcher.ts';
import { encodeBatch } from '../queues/harmonize-job.ts';
import { createHarmonizeQueue } from './queue.ts';
import type { RawMessage } from '../domain/raw-message.ts';
import { renewingQueue } from '../queues/renewing-queue.ts';

/** Where adapters hand raw messages over: a batcher in front of the harmonize queue. */
export interface Ingest {
  /** Resolves once the message is durably queued (in a batch); rejects when Redis refused it. */
  enqueue(message: RawMessage): Promise<void>;
  /** Queues these at once, as one batch per PIPELINE_BATCH_SIZE; resolves when all are queued. */
  enqueueNow(messages: RawMessage[]): Promise<void>;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 500;

export function createIngest(services: Pick<Services, 'config' | 'secrets' | 'redisUrl' | 'readiness'>, opts: { maxWaitMs?: number } = {}): Ingest {
  const { config, secrets } = services;
  const queue = renewingQueue(() => createHarmonizeQueue(config, services.redisUrl));
  /**
   * Before its first connection a fail-fast producer refuses every command, and after it waits
   * for Redis indefinitely. Both are wrong for a publisher waiting on its acknowledgement: wait
   * for the connection a short while, then refuse (503, or no PUBACK), and the sender retries.
   */
  let ready = false;
  const connected = async (): Promise<void> => {
    if (ready) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the queue (Redis) is not reachable')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([queue.current().waitUntilReady(), timeout]);
      ready = true;
    } finally {
      clearTimeout(timer);
    }
  };
  // Ready means ingest is accepted: this producer's own connection reconnects on its own
  // backoff, so the shared client answering is not enough (an HTTP batch would get 503).
  services.readiness.set('ingest-queue', async () => {
    await queue.current().getJobCounts('wait');
  });
  const batcher = createBatcher<RawMessage>({
    size: config.PIPELINE_BATCH_SIZE,
    maxWaitMs: opts.maxWaitMs ?? config.PIPELINE_BATCH_MAX_WAIT_MS,
    send: async (messages) => {
      await connected();
      await queue.current().add('batch', encodeBatch(secrets, messages));
    },
  });
  return {
    enqueue: (m) => batcher.add(m),
    enqueueNow: (ms) => batcher.addNow(ms),
    async close() {
      services.readiness.delete('ingest-queue');
      await batcher.flush();
      await queue.close();
    },
  };
}
