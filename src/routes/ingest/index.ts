import type { FastifyInstance } from 'fastify';
import { createHttpBatches } from '../../transports/http/http-batch.ts';
import type { IngestRoutesContext, RouteGroupOptions } from '../contexts.ts';
import type { RouteOptions } from '../route-options.ts';
import { ingestSchema } from './schemas.ts';

/**
 * HTTP ingestion of manufacturers' raw batches: POST /ingest/v1/{manufacturer}. Only the HTTP
 * glue: the transport (signature, records, the one accept()) is src/transports/http/http-batch.ts
 * (at most INGEST_MAX_RECORDS records per request, so one request's work stays bounded).
 */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<IngestRoutesContext>): Promise<void> {
  const batches = createHttpBatches(opts.ctx);
  app.addHook('onClose', () => batches.close());
  // Scoped to this plugin: JSON bodies arrive as bytes, since the signature covers them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json'], { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.post<{ Params: { manufacturer: string } }>('/ingest/v1/:manufacturer', { schema: ingestSchema }, async (request, reply) => {
    const accepted = await batches.receive(request.params.manufacturer, request.headers, request.body);
    return reply.code(202).send({ accepted });
  });
}
