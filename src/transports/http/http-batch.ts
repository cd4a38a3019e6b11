import type { Adapter } from '../../adapters/manifest.ts';
import { adapterSecret } from '../../adapters/secrets.ts';
import { ApiError, apiErrors } from '../../errors.ts';
import { metrics } from '../../metrics/metrics.ts';
import type { TransportDeps } from '../deps.ts';
import { createAcceptor, type Acceptor, type Arrival } from '../accept.ts';
import { DEFAULT_TOLERANCE_S, type HttpTransport } from './kind.ts';
import { verifySignature } from './signature.ts';

/** Seconds a manufacturer should wait before re-sending when the queue is down. */
const RETRY_AFTER_S = 5;

/** The HTTP transport: signed batches of records, one raw message per record. */
export interface HttpBatches {
  /**
   * Checks the batch of the manufacturer (its signature covers the exact bytes received, so the
   * body comes raw and is parsed here, after the check) and accepts its records, one raw message
   * each (so one bad record is quarantined alone). Returns how many were queued; throws the
   * contract's errors (404 no such HTTP manufacturer, 415 not JSON, 401 signature, 400 body, 503 queue down).
   */
  receive(manufacturerId: string, headers: Record<string, string | string[] | undefined>, body: unknown): Promise<number>;
  close(): Promise<void>;
}

export function createHttpBatches(services: TransportDeps): HttpBatches {
  const { config, adapters, clock } = services;
  // Opened at once when a manufacturer ingests over HTTP, so the process's readiness covers the
  // queue connection batches go through from the first request on.
  const acceptor: Acceptor | undefined = adapters.list().some((a) => a.manifest.transport.kind === 'http') ? createAcceptor(services) : undefined;
  return {
    async receive(manufacturerId, headers, body) {
      const adapter = adapters.get(manufacturerId);
      const t = adapter?.manifest.transport;
      if (!adapter || !acceptor || t?.kind !== 'http') throw apiErrors.notFound(`No HTTP ingest for manufacturer ${manufacturerId}.`);
      const manufacturer = adapter.manifest.id;
      if (!Buffer.isBuffer(body)) throw apiErrors.unsupportedMediaType();
      const header = headers[t.signatureHeader.toLowerCase()];
      const check = verifySignature(typeof header === 'string' ? header : undefined, body, adapterSecret(config, adapter), clock.now().getTime(), t.toleranceS ?? DEFAULT_TOLERANCE_S);
      if (!check.ok) {
        metrics.ingestRejected.inc({ manufacturer, reason: `signature_${check.reason}` });
        throw new ApiError(401, `Unauthorized request, ${check.reason === 'expired' ? 'signature timestamp outside the allowed window' : 'invalid signature'}.`);
      }
      try {
        return await acceptor.accept(arrivalOf(adapter, t, body, config.INGEST_MAX_RECORDS));
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw apiErrors.unavailable(RETRY_AFTER_S);
      }
    },
    close: async () => acceptor?.close(),
  };
}

/** The batch's records as an arrival; throws 400 naming what is wrong with the body. */
function arrivalOf(adapter: Adapter, t: HttpTransport, body: Buffer, maxRecords: number): Arrival {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw apiErrors.badRequest('the request body is not valid JSON.');
  }
  const records = (parsed as Record<string, unknown> | null)?.[t.recordsField];
  if (!Array.isArray(records) || records.length === 0) throw apiErrors.badRequest(`the body needs a non-empty "${t.recordsField}" list.`);
  if (records.length > maxRecords) {
    metrics.ingestRejected.inc({ manufacturer: adapter.manifest.id, reason: 'too_many_records' }, records.length);
    throw apiErrors.tooManyRecords(records.length, maxRecords);
  }
  const messages = records.map((record: unknown, i) => {
    const type = (record as Record<string, unknown> | null)?.[t.typeField];
    if (typeof type !== 'string' || type === '') throw apiErrors.badRequest(`${t.recordsField}[${i}] has no "${t.typeField}".`);
    try {
      return { messageType: type, bytes: JSON.stringify(record) };
    } catch {
      // A stack overflow on a record nested thousands of levels deep: refused, not a 500.
      throw apiErrors.badRequest(`${t.recordsField}[${i}] is nested too deeply.`);
    }
  });
  // Bounded by BODY_LIMIT_BYTES already; the sender waits for the answer, so queued at once.
  return { manufacturer: adapter.manifest.id, transport: 'http', messages, what: 'an HTTP batch', batching: 'now', refused: { consequence: 'answering 503' } };
}
