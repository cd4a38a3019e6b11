import type { QueueName } from '../../src/queues/keys.ts';
import { Queue } from 'bullmq';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVATION_QUEUE } from '../../src/queues/activation-job.ts';
import { createActivationQueue } from '../../src/management/queue.ts';
import { createPollSchedule } from '../../src/management/poll-schedule.ts';
import { POLL_QUEUE } from '../../src/queues/poll-job.ts';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { housekeepingJobOptions } from '../../src/queues/installation-schedule.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import { createPushQueue } from '../../src/push/queue.ts';
import { PUSH_QUEUE } from '../../src/queues/push-job.ts';
import { defaultPaths } from '../../src/paths.ts';
import { type Services } from '../../src/services.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { waitFor } from '../pipeline/harness.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

const ROOT = defaultPaths().root;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/**
 * Whether a removeOnComplete/removeOnFail option keeps a job at most `seconds`: removed at once
 * (`true`, or a count of 0), or an age no longer than the setting. A count alone bounds memory,
 * not time, and does not do.
 */
function keptAtMost(option: unknown, seconds: number): boolean {
  if (option === true || option === 0) return true;
  const age = (option as { age?: unknown } | undefined)?.age;
  return typeof age === 'number' && age <= seconds;
}

async function jobsOf(services: Services, name: QueueName) {
  const queue = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, name);
  try {
    return await queue.getJobs(['wait', 'delayed', 'prioritized', 'completed', 'failed']);
  } finally {
    await queue.close();
  }
}

/**
 * Storage limitation: BullMQ keeps no completed or failed job longer than JOB_RETENTION_*_S. Every
 * producer in the code base is exercised and its jobs read back from Redis; a new producer
 * makes the first test fail until it is added here.
 */
describe('queued jobs are kept no longer than JOB_RETENTION_COMPLETED_S / JOB_RETENTION_FAILED_S', () => {
  let t: TestServices;
  afterEach(async () => t?.cleanup());

  it('the queues below are all the producers in src/ (the other files opening a queue only read it)', () => {
    const producers = sourceFiles(join(ROOT, 'src'))
      .filter((f) => /new Queue\b|\bopenQueue(<[^>]*>)?\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
      .sort();
    // The one factory every queue is opened with; readers, which add no job of their own: the
    // short-lived handle (the erasure's sweep; its notices use the push queue's job options) and
    // the metrics scrape (queue depths).
    const readers = ['src/queues/open-queue.ts', 'src/queues/with-queue.ts', 'src/main/queue-metrics.ts'];
    // A new file here must be classified: a producer is added to the test below, a reader above.
    expect(producers.filter((f) => !readers.includes(f))).toEqual([
      'src/management/poll-schedule.ts',
      'src/management/queue.ts',
      'src/pipeline/queue.ts',
      'src/push/queue.ts',
      'src/queues/installation-schedule.ts',
    ]);
  });

  it('every producer removes its jobs at once or by age within the settings', async () => {
    t = await createTestServices({ env: { JOB_RETENTION_COMPLETED_S: '123', JOB_RETENTION_FAILED_S: '4567' } });
    const { services } = t;
    const ingest = createIngest(services);
    await ingest.enqueueNow([rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date().toISOString() }, '{}')]);
    await ingest.close();
    const push = createPushQueue(services);
    await push.add([{ transactionId: '6f1c2a9e-4b7d-5e0a-9c3f-8d2b1a5e7c40', vin: 'V1RTUALV1N0000001' }]);
    await push.close();
    const activation = createActivationQueue(services);
    await activation.enqueue([{ job: { action: 'activate', subscriptionId: 's', vin: 'V1RTUALV1N0000001' }, delayMs: 60_000 }]);
    await activation.close();
    const polls = createPollSchedule(services);
    await polls.ensure('kestrel', 'KESTRELV1N0000001');
    await polls.close();

    // Housekeeping runs carry no data, and are kept no longer either.
    const housekeeping = housekeepingJobOptions({ completedS: services.config.JOB_RETENTION_COMPLETED_S, failedS: services.config.JOB_RETENTION_FAILED_S });
    expect(keptAtMost(housekeeping.removeOnComplete, 123)).toBe(true);
    expect(keptAtMost(housekeeping.removeOnFail, 4567)).toBe(true);

    for (const name of [HARMONIZE_QUEUE, PUSH_QUEUE, ACTIVATION_QUEUE, POLL_QUEUE]) {
      const jobs = await jobsOf(services, name);
      expect(jobs, name).toHaveLength(1);
      expect(keptAtMost(jobs[0]!.opts.removeOnComplete, 123), `${name} removeOnComplete`).toBe(true);
      expect(keptAtMost(jobs[0]!.opts.removeOnFail, 4567), `${name} removeOnFail`).toBe(true);
    }
  });

  it('a completed pipeline batch is gone from Redis once older than JOB_RETENTION_COMPLETED_S', async () => {
    t = await createTestServices({ env: { JOB_RETENTION_COMPLETED_S: '1', PIPELINE_BATCH_MAX_WAIT_MS: '5' } });
    const { services } = t;
    const worker = startHarmonizeWorker(pipelineContext(services));
    const ingest = createIngest(services);
    try {
      const send = () => ingest.enqueueNow([rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date().toISOString() }, '{}')]);
      await send();
      const first = await waitFor(async () => (await jobsOf(services, HARMONIZE_QUEUE)).find((j) => j.finishedOn !== undefined), 10_000, 'the first batch');
      // BullMQ trims by age when the next job of the queue completes.
      await new Promise((r) => setTimeout(r, 1_100));
      await send();
      await waitFor(async () => {
        const ids = (await jobsOf(services, HARMONIZE_QUEUE)).map((j) => j.id);
        return ids.length === 1 && ids[0] !== first.id;
      }, 10_000, 'the first batch to be trimmed');
    } finally {
      await ingest.close();
      await worker.close();
    }
  });
});
