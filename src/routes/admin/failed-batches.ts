import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { createHarmonizeQueue } from '../../pipeline/queue.ts';
import type { AdminContext, RouteGroupOptions } from '../contexts.ts';
import { renewingQueue, type RenewingQueue } from '../../queues/renewing-queue.ts';

const common = { tags: ['admin'], security: [{ adminToken: [] }] };
const RETRY_AFTER_S = 5;

/**
 * Admin API: harmonize batches that failed every attempt (an outage of Redis or of the push
 * hand-over lasting hours, or a defect). They hold messages already acknowledged to the
 * manufacturer, kept JOB_RETENTION_FAILED_S in Redis: an operator looks how many there are and,
 * once the cause is fixed, sends them through the pipeline again. Storing is idempotent, so a
 * batch that was partly stored before it failed stores nothing twice.
 */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<AdminContext>): Promise<void> {
  const { ctx } = opts;
  // Every harmonize partition: a failed batch may be in any of them.
  let queues: RenewingQueue<ReturnType<typeof createHarmonizeQueue>>[] | undefined;
  const harmonizeQueues = () =>
    (queues ??= Array.from({ length: ctx.config.HARMONIZE_PARTITIONS }, (_, p) => renewingQueue(() => createHarmonizeQueue(ctx.config, ctx.redisUrl, p)))).map((q) =>
      q.current(),
    );
  app.addHook('onClose', async () => {
    await Promise.all((queues ?? []).map((q) => q.close()));
  });

  const failedCount = async (): Promise<number> => {
    try {
      const counts = await Promise.all(harmonizeQueues().map((q) => q.getJobCounts('failed')));
      return counts.reduce((sum, c) => sum + (c.failed ?? 0), 0);
    } catch {
      throw apiErrors.unavailable(RETRY_AFTER_S);
    }
  };

  app.get(
    '/pipeline/failed-batches',
    {
      schema: {
        ...common,
        summary: 'How many harmonize batches failed every attempt',
        response: { 200: { type: 'object', properties: { failed: { type: 'integer' } }, required: ['failed'] }, ...errorResponses(401, 503) },
      },
    },
    async () => ({ failed: await failedCount() }),
  );

  app.post(
    '/pipeline/failed-batches/retry',
    {
      schema: {
        ...common,
        summary: 'Send every failed harmonize batch through the pipeline again',
        description: 'Each batch gets one more run; one that fails again returns to the failed set. 202 once they are queued.',
        response: { 202: { type: 'object', properties: { retried: { type: 'integer' } }, required: ['retried'] }, ...errorResponses(401, 503) },
      },
    },
    async (_request, reply) => {
      const retried = await failedCount();
      try {
        await Promise.all(harmonizeQueues().map((q) => q.retryJobs({ state: 'failed', count: 1000 })));
      } catch {
        throw apiErrors.unavailable(RETRY_AFTER_S);
      }
      ctx.logger.warn({ retried }, 'failed harmonize batches sent through the pipeline again');
      return reply.code(202).send({ retried });
    },
  );
}
