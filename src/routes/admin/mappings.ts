import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { requireJsonBody } from '../../http/json-only.ts';
import { errorResponses } from '../../http/schemas.ts';
import { ThreadBusy } from '../../mapping-cases/sandbox.ts';
import { pageSize } from './page-size.ts';
import type { AdminContext, RouteGroupOptions } from '../contexts.ts';

const common = { tags: ['admin'], security: [{ adminToken: [] }] };

const dryRunResponse = {
  type: 'object',
  properties: {
    manufacturer: { type: 'string' },
    messageType: { type: 'string' },
    mappingVersion: { type: ['string', 'null'] },
    valid: { type: 'boolean', description: 'True when the pipeline would store the message.' },
    failure: {
      type: ['object', 'null'],
      properties: { code: { type: 'string' }, reason: { type: 'string' } },
      description: 'Why the pipeline would quarantine it.',
    },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          vin: { type: 'string' },
          item: { type: 'string' },
          payload: { type: 'object', additionalProperties: true },
          valid: { type: 'boolean' },
          errors: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

const pointSchema = {
  type: 'object',
  properties: {
    vin: { type: 'string' },
    item: { type: 'string' },
    timestampMs: { type: 'integer' },
    payload: { type: 'object', additionalProperties: true },
    manufacturer: { type: 'string', description: 'Provenance: the adapter that received it.' },
    mappingVersion: { type: 'string', description: 'Provenance: `<mapping file>@<hash>`.' },
    receivedAt: { type: 'string', format: 'date-time', description: 'Provenance: when the raw message arrived.' },
  },
} as const;

/** Admin API: mapping dry runs for data engineers, and the provenance of stored points. */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<AdminContext>): Promise<void> {
  const { ctx } = opts;
  app.addHook('onRequest', requireJsonBody);
  // Dry runs run in the mapping sandbox (a worker thread stopped at the run's deadline): a
  // message that sends a deployed mapping's $sort or regular expression into minutes of work
  // costs that thread, never this process's event loop.
  const { sandbox, release } = ctx.acquireMappingSandbox();
  app.addHook('onClose', () => release());

  app.post<{ Params: { manufacturer: string }; Body: { messageType: string; message?: unknown; raw?: string; receivedAt?: string } }>(
    '/mappings/:manufacturer/dry-run',
    {
      schema: {
        ...common,
        summary: 'Harmonize one raw message without storing anything',
        description: 'Give the raw message as JSON (`message`) or as text (`raw`). Returns every harmonized item and every schema error.',
        params: { type: 'object', properties: { manufacturer: { type: 'string', maxLength: 40 } }, required: ['manufacturer'] },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            messageType: { type: 'string', minLength: 1, maxLength: 100 },
            message: {},
            raw: { type: 'string' },
            receivedAt: { type: 'string', format: 'date-time' },
          },
          required: ['messageType'],
        },
        response: { 200: dryRunResponse, ...errorResponses(400, 401, 404, 413, 415, 503) },
      },
    },
    async (request) => {
      const { messageType, message, raw, receivedAt } = request.body;
      if ((message === undefined) === (raw === undefined)) throw apiErrors.badRequest('give either "message" (JSON) or "raw" (text).');
      const adapter = ctx.adapters.get(request.params.manufacturer);
      if (!adapter) throw apiErrors.notFound(`No adapter ${request.params.manufacturer}.`);
      let result;
      try {
        result = await sandbox.dryRun(adapter, messageType, raw ?? JSON.stringify(message), receivedAt ? new Date(receivedAt).toISOString() : ctx.clock.now().toISOString());
      } catch (err) {
        if (err instanceof ThreadBusy) throw apiErrors.unavailable(2, 'The mapping sandbox is busy: try again in a moment.');
        throw err;
      }
      // A deployed mapping compiled at start; the same text compiles in the sandbox.
      if ('compileError' in result) throw new Error(result.compileError);
      return result;
    },
  );

  app.get<{ Params: { vin: string; item: string }; Querystring: { limit?: string; cursor?: string } }>(
    '/data-points/:vin/:item/history',
    {
      schema: {
        ...common,
        summary: 'Stored history of one item of one vehicle, with provenance (manufacturer, mapping version, received at)',
        params: {
          type: 'object',
          properties: { vin: { type: 'string', minLength: 1, maxLength: 17 }, item: { type: 'string', maxLength: 100 } },
          required: ['vin', 'item'],
        },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: 'Page size, 1 to 1000 (default 100).' }, cursor: { type: 'string', maxLength: 200 } },
        },
        response: {
          200: { type: 'object', properties: { items: { type: 'array', items: pointSchema }, nextCursor: { type: ['string', 'null'] } } },
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const { vin, item } = request.params;
      const { limit: rawLimit, cursor } = request.query;
      const limit = pageSize(rawLimit);
      try {
        return await ctx.store.dataPoints.history({ vin, item, limit, ...(cursor ? { cursor } : {}) });
      } catch (err) {
        if (err instanceof RangeError) throw apiErrors.badRequest('invalid cursor.');
        throw err;
      }
    },
  );
}
