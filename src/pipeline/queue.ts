import type { DefaultJobOptions, Queue } from 'bullmq';
import { HARMONIZE_QUEUE } from '../queues/harmonize-job.ts';
import { openQueue, queueHome } from '../queues/open-queue.ts';
import type { Settings } from '../config-sections.ts';

/**
 * Failures other than a store outage (which postpones the batch without counting, see
 * worker.ts) are retried with exponential backoff, 1 s doubling, 15 attempts: about 4.5 hours
 * before a batch lands in the failed set, where it stays JOB_RETENTION_FAILED_S (and among the
 * newest 10,000, to bound Redis memory) for an operator to retry (docs/operations.md). Bad
 * messages never fail a job: they are quarantined one by one.
 * Completed batches are kept at most JOB_RETENTION_COMPLETED_S and 100 of them, since each holds
 * up to PIPELINE_BATCH_SIZE raw messages.
 */
export function harmonizeJobOptions(config: Settings<'queues'>): DefaultJobOptions {
  return {
    attempts: 15,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: config.JOB_RETENTION_COMPLETED_S, count: 100 },
    removeOnFail: { age: config.JOB_RETENTION_FAILED_S, count: 10_000 },
  };
}

/**
 * The producer side of one harmonize partition, failing fast when Redis is down
 * (enableOfflineQueue false): an MQTT publish is then refused without PUBACK and an HTTP batch
 * answered 503, instead of hanging. Errors surface on the add() that failed. An add resolves
 * once the batch reached REDIS_WAIT_REPLICAS replicas (src/queues/open-queue.ts).
 */
export function createHarmonizeQueue(config: Settings<'queues'>, redisUrl: string, partition = 0): Queue<unknown, unknown, string> {
  return openQueue(HARMONIZE_QUEUE, queueHome({ redisUrl, config }), { partition, defaultJobOptions: harmonizeJobOptions(config) });
}
