import type { FastifyInstance } from 'fastify';
import { verifySignature } from '../../adapters/http/signature.ts';
import { adapterSecret } from '../../adapters/secrets.ts';
import { ApiError, apiErrors } from '../../errors.ts';
import { metrics } from '../../metrics/metrics.ts';
import { createIngest, type Ingest } from '../../pipeline/ingest.ts';
import { rawMessage, type RawMessage } from '../../pipeline/raw-message.ts';
import type { RouteOptions } from '../route-options.ts';
import { ingestSchema } from './schemas.ts';

/** Seconds a manufacturer should wait before re-sending when the queue is down. */
const RETRY_AFTER_S = 5;
const DEFAULT_TOLERANCE_S = 300;

/**
 * HTTP ingestion of manufacturers' raw batches: POST /ingest/v1/{manufacturer}. The signature
 * covers the exact bytes received, so the body is read raw and parsed here, after the check.
 * The batch's records become one raw message each (so one bad record is quarantined alone); at
 * most INGEST_MAX_RECORDS of them per request, so one request's work stays bounded.
 */
export default async function routes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { services } = opts;
  const { config, adapters, clock, logger } = services;
  // Opened with the routes when a manufacturer ingests over HTTP, so the process's readiness
  // covers the queue connection batches go through from the first request on.
  const ingest: Ingest | undefined = adapters.list().some((a) => a.manifest.transport.kind === 'http') ? createIngest(services) : undefined;
  app.addHook('onClose', async () => ingest?.close());
  // Scoped to this plugin: JSON bodies arrive as bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json'], { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.post<{ Params: { manufacturer: string } }>('/ingest/v1/:manufacturer', { schema: ingestSchema }, async (request, reply) => {
    const adapter = adapters.get(request.params.manufacturer);
    const t = adapter?.manifest.transport;
    if (!adapter || t?.kind !== 'http') throw apiErrors.notFound(`No HTTP ingest for manufacturer ${request.params.manufacturer}.`);
    const manufacturer = adapter.manifest.id;
    const body = request.body;
    if (!Buffer.isBuffer(body)) throw apiErrors.unsupportedMediaType();

    const header = request.headers[t.signatureHeader.toLowerCase()];
    const check = verifySignature(
      typeof header === 'string' ? header : undefined,
      body,
      adapterSecret(config, adapter),
      clock.now().getTime(),
      t.toleranceS ?? DEFAULT_TOLERANCE_S,
    );
    if (!check.ok) {
      metrics.ingestRejected.inc({ manufacturer, reason: `signature_${check.reason}` });
      throw new ApiError(401, `Unauthorized request, ${check.reason === 'expired' ? 'signature timestamp outside the allowed window' : 'invalid signature'}.`);
    }

    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw apiErrors.badRequest('the request body is not valid JSON.');
    }
    const records = (parsed as Record<string, unknown> | null)?.[t.recordsField];
    if (!Array.isArray(records) || records.length === 0) throw apiErrors.badRequest(`the body needs a non-empty "${t.recordsField}" list.`);
    if (records.length > config.INGEST_MAX_RECORDS) {
      metrics.ingestRejected.inc({ manufacturer, reason: 'too_many_records' }, records.length);
      throw apiErrors.tooManyRecords(records.length, config.INGEST_MAX_RECORDS);
    }
    const receivedAt = clock.now().toISOString();
    const messages: RawMessage[] = records.map((record: unknown, i) => {
      const type = (record as Record<string, unknown> | null)?.[t.typeField];
      if (typeof type !== 'string' || type === '') throw apiErrors.badRequest(`${t.recordsField}[${i}] has no "${t.typeField}".`);
      let raw: string;
      try {
        raw = JSON.stringify(record);
      } catch {
        // A stack overflow on a record nested thousands of levels deep: refused, not a 500.
        throw apiErrors.badRequest(`${t.recordsField}[${i}] is nested too deeply.`);
      }
      return rawMessage({ manufacturer, messageType: type, receivedAt }, raw);
    });

    try {
      if (!ingest) throw new Error('no ingest queue: no adapter ingests over HTTP');
      await ingest.enqueueNow(messages);
    } catch (err) {
      metrics.ingestRejected.inc({ manufacturer, reason: 'queue_unavailable' }, messages.length);
      logger.warn({ manufacturer, err: (err as Error).message }, 'queue refused an HTTP batch; answering 503');
      throw apiErrors.unavailable(RETRY_AFTER_S);
    }
    metrics.ingestMessages.inc({ manufacturer, transport: 'http' }, messages.length);
    return reply.code(202).send({ accepted: messages.length });
  });
}
