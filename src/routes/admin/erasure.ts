import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { eraseVehicleData } from '../../gdpr/erase.ts';
import { QueueUnavailableError } from '../../queues/unavailable.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { AdminContext, RouteGroupOptions } from '../contexts.ts';

const count = { type: 'integer', minimum: 0 } as const;

const receiptSchema = {
  type: 'object',
  description: 'What was erased. Repeating the call erases what is left and reports zeros for the rest.',
  properties: {
    vin: { type: 'string' },
    subscriptionId: { type: 'string', description: 'Only on the subscription-scoped call.' },
    erasedAt: { type: 'string', format: 'date-time' },
    erased: {
      type: 'object',
      properties: {
        dataPoints: { ...count, description: 'History rows (latest values included). Zero on the subscription-scoped call: data points are shared.' },
        quarantined: { ...count, description: 'Quarantined raw messages. Zero on the subscription-scoped call.' },
        consents: count,
        deliveries: { ...count, description: 'Push deliveries.' },
        activations: { ...count, description: 'Vehicle activations (one per subscription).' },
        queuedJobs: { ...count, description: 'Queued jobs removed: pipeline batches of only this VIN, push and activation jobs.' },
        rewrittenJobs: { ...count, description: 'Pipeline batches that also held other vehicles: re-sealed without this VIN.' },
        queuedMessages: { ...count, description: 'Raw messages taken out of queued pipeline batches.' },
        cacheKeys: { ...count, description: 'Redis keys naming the VIN or its pseudonym (rate limits, push throttles, codes).' },
      },
      required: ['dataPoints', 'quarantined', 'consents', 'deliveries', 'activations', 'queuedJobs', 'rewrittenJobs', 'queuedMessages', 'cacheKeys'],
    },
    notErased: {
      type: 'object',
      description: 'What the erasure could not reach; all zero when it is complete. Repeat the call when not.',
      properties: {
        unreadableJobs: { ...count, description: 'Pipeline batches that cannot be opened with this service\'s key.' },
        activeJobs: { ...count, description: 'Jobs of the VIN a worker still held when the erasure stopped waiting.' },
      },
      required: ['unreadableJobs', 'activeJobs'],
    },
  },
  required: ['vin', 'erasedAt', 'erased', 'notErased'],
} as const;

/** Upper and lower case accepted (a VIN is case-insensitive); erased in upper case. */
const vinParam = { type: 'string', pattern: '^[A-HJ-NPR-Za-hj-npr-z0-9]{17}$', description: 'The VIN (17 characters, no I, O or Q).' } as const;
const common = { tags: ['admin'], security: [{ adminToken: [] }] };
/** Redis or the store down: the erasure stopped half-way and is safe to repeat. */
const RETRY_AFTER_S = 5;

/** ioredis's ways of saying Redis cannot be reached (a store outage has its own error, mapped to 503 too). */
function isRedisOutage(err: unknown): boolean {
  const e = err as { name?: string; message?: string; code?: string } | null;
  return (
    err instanceof QueueUnavailableError ||
    e?.name === 'MaxRetriesPerRequestError' ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection is closed|Stream isn't writeable|max retries per request/i.test(`${e?.code ?? ''} ${e?.message ?? ''}`)
  );
}

/**
 * Admin API: GDPR erasure (Art. 17). VIN-wide on a data subject's request, or scoped to
 * one subscription whose legal basis for the vehicle has ended.
 */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<AdminContext>): Promise<void> {
  const { ctx } = opts;

  const erase = async (vin: string, subscriptionId?: string) => {
    try {
      return await eraseVehicleData(ctx, vin.toUpperCase(), subscriptionId === undefined ? {} : { subscriptionId });
    } catch (err) {
      if (!isRedisOutage(err)) throw err;
      ctx.logger.warn({ err: (err as Error).message }, 'erasure stopped half-way (Redis unavailable); it can be repeated');
      throw apiErrors.unavailable(RETRY_AFTER_S, 'Erasure incomplete: the queue is unavailable. Please repeat the request.');
    }
  };

  app.delete<{ Params: { vin: string } }>(
    '/vehicles/:vin/data',
    {
      schema: {
        ...common,
        summary: "Erase a vehicle's data (GDPR Art. 17)",
        description:
          'Erases every stored data point (history and latest), quarantined raw message, consent process, push delivery and ' +
          'vehicle activation of the VIN, its raw messages in queued pipeline batches, its push and activation jobs, and Redis ' +
          'keys naming it; returns a receipt and records an audit event that names the VIN only by its pseudonym.',
        params: { type: 'object', properties: { vin: vinParam }, required: ['vin'] },
        response: { 200: receiptSchema, ...errorResponses(400, 401, 503) },
      },
    },
    async (request) => erase(request.params.vin),
  );

  app.delete<{ Params: { subscriptionId: string; vin: string } }>(
    '/subscriptions/:subscriptionId/vehicles/:vin/data',
    {
      schema: {
        ...common,
        summary: "Erase a vehicle's data in one subscription",
        description:
          'For a subscription that no longer has a legal basis for the vehicle: erases its consent processes, push deliveries ' +
          'and activation of the VIN, their queued jobs and Redis keys. Data points and quarantined messages are the ' +
          "manufacturer's harmonized data shared by every subscription with the vehicle; DELETE /admin/v1/vehicles/{vin}/data " +
          'erases them.',
        params: {
          type: 'object',
          properties: { subscriptionId: { type: 'string', minLength: 1, maxLength: 64 }, vin: vinParam },
          required: ['subscriptionId', 'vin'],
        },
        response: { 200: receiptSchema, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request) => {
      const { subscriptionId, vin } = request.params;
      if (!(await ctx.store.subscriptions.get(subscriptionId))) throw apiErrors.notFound('Subscription not found.');
      return erase(vin, subscriptionId);
    },
  );
}
