import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { requireJsonBody } from '../../http/json-only.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { Ingest } from '../../pipeline/ingest.ts';
import { MAX_REPROCESS, reprocessQuarantined, type ReprocessSelection } from '../../pipeline/reprocess.ts';
import { QUARANTINE_CODES, type QuarantineCode, type QuarantineFilter } from '../../store/contract/quarantine.ts';
import { pageSize } from './page-size.ts';
import type { AdminContext, RouteGroupOptions } from '../contexts.ts';

const common = { tags: ['admin'], security: [{ adminToken: [] }] };
const RETRY_AFTER_S = 5;

const entrySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    manufacturer: { type: 'string' },
    messageType: { type: 'string' },
    code: { type: 'string', enum: [...QUARANTINE_CODES] },
    reason: { type: 'string' },
    mappingVersion: { type: ['string', 'null'] },
    vin: { type: ['string', 'null'] },
    topic: { type: ['string', 'null'] },
    raw: { type: 'string', description: 'The message as received: UTF-8 text, or base64 (see rawEncoding).' },
    rawEncoding: { type: 'string', enum: ['utf8', 'base64'] },
    rawTruncated: { type: 'boolean', description: 'The message was longer than QUARANTINE_MAX_RAW_BYTES: `raw` holds its first bytes, and it cannot be reprocessed.' },
    receivedAt: { type: 'string', format: 'date-time' },
    quarantinedAt: { type: 'string', format: 'date-time' },
    lastFailedAt: { type: 'string', format: 'date-time' },
    failures: { type: 'integer' },
    failedItems: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Present when only these items of the message were quarantined and its other items stored (manifest `invalidItems: quarantine-items`): `<item>` of the message, whose raw text is `raw`. Reprocessing sends the whole message again; its stored items are not stored or pushed twice.',
    },
  },
  required: ['id', 'manufacturer', 'messageType', 'code', 'reason', 'raw', 'rawEncoding', 'rawTruncated', 'receivedAt', 'quarantinedAt', 'lastFailedAt', 'failures'],
} as const;

const filterProperties = {
  manufacturer: { type: 'string', maxLength: 40 },
  code: { type: 'string', enum: [...QUARANTINE_CODES] },
  since: { type: 'string', format: 'date-time', description: 'Last failure at or after.' },
  until: { type: 'string', format: 'date-time', description: 'Last failure before.' },
} as const;

interface FilterInput {
  manufacturer?: string;
  code?: QuarantineCode;
  since?: string;
  until?: string;
}

/** ISO strings compare in time order only in one form: normalise what the client sent. */
function toFilter(q: FilterInput): QuarantineFilter {
  return {
    ...(q.manufacturer !== undefined ? { manufacturer: q.manufacturer } : {}),
    ...(q.code !== undefined ? { code: q.code } : {}),
    ...(q.since !== undefined ? { since: new Date(q.since).toISOString() } : {}),
    ...(q.until !== undefined ? { until: new Date(q.until).toISOString() } : {}),
  };
}

/** Admin API: raw messages in quarantine, and reprocessing them after a mapping fix. */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<AdminContext>): Promise<void> {
  const { ctx } = opts;
  let ingest: Ingest | undefined;
  app.addHook('onClose', async () => ingest?.close());
  app.addHook('onRequest', requireJsonBody);

  app.get<{ Querystring: FilterInput & { limit?: string; cursor?: string } }>(
    '/quarantine',
    {
      schema: {
        ...common,
        summary: 'List quarantined raw messages, newest failure first',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { ...filterProperties, limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: 'Page size, 1 to 1000 (default 100). A page also ends once its raw messages add up to QUARANTINE_PAGE_MAX_BYTES (4 MiB by default; at least one entry): follow `nextCursor`.' }, cursor: { type: 'string', maxLength: 500 } },
        },
        response: {
          200: { type: 'object', properties: { items: { type: 'array', items: entrySchema }, nextCursor: { type: ['string', 'null'] } }, required: ['items', 'nextCursor'] },
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const { limit: rawLimit, cursor, ...filter } = request.query;
      const limit = pageSize(rawLimit);
      try {
        return await ctx.store.quarantine.list(toFilter(filter), limit, cursor, { maxBytes: ctx.config.QUARANTINE_PAGE_MAX_BYTES });
      } catch (err) {
        if (err instanceof RangeError) throw apiErrors.badRequest('invalid cursor.');
        throw err;
      }
    },
  );

  app.get<{ Params: { id: string } }>(
    '/quarantine/:id',
    {
      schema: {
        ...common,
        summary: 'One quarantined raw message',
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } }, required: ['id'] },
        response: { 200: entrySchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const [entry] = await ctx.store.quarantine.get([request.params.id]);
      if (!entry) throw apiErrors.notFound(`Quarantined message ${request.params.id} not found.`);
      return entry;
    },
  );

  app.post<{ Body: { ids?: string[]; filter?: FilterInput; limit?: number } }>(
    '/quarantine/reprocess',
    {
      schema: {
        ...common,
        summary: 'Send quarantined messages through the pipeline again (after a mapping fix)',
        description:
          'By `ids`, or by `filter` (up to `limit`, newest first). Messages that now harmonize are stored and leave quarantine; ' +
          'those that fail again stay, with the new reason. 202 once they are queued. Entries kept cut (`rawTruncated`) are skipped: their end is gone.',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ids: { type: 'array', minItems: 1, maxItems: MAX_REPROCESS, items: { type: 'string', maxLength: 100 } },
            filter: { type: 'object', additionalProperties: false, properties: filterProperties },
            limit: { type: 'integer', minimum: 1, maximum: MAX_REPROCESS, default: 1000 },
          },
        },
        response: {
          202: { type: 'object', properties: { queued: { type: 'integer' } }, required: ['queued'] },
          ...errorResponses(400, 401, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const { ids, filter, limit = 1000 } = request.body ?? {};
      if ((ids === undefined) === (filter === undefined)) throw apiErrors.badRequest('give either "ids" or "filter".');
      const selection: ReprocessSelection = ids ? { ids } : { filter: toFilter(filter ?? {}), limit };
      let queued: number;
      try {
        queued = await reprocessQuarantined(ctx, (ingest ??= ctx.openIngest()), selection);
      } catch (err) {
        if ((err as Error).name === 'StoreUnavailableError') throw err;
        request.log.warn({ err: (err as Error).message }, 'queue refused reprocessing');
        throw apiErrors.unavailable(RETRY_AFTER_S);
      }
      return reply.code(202).send({ queued });
    },
  );
}
