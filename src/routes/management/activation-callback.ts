import type { FastifyInstance } from 'fastify';
import { adapterSecret } from '../../adapters/secrets.ts';
import { apiErrors } from '../../errors.ts';
import { requireJsonBody } from '../../http/json-only.ts';
import { errorResponses } from '../../http/schemas.ts';
import { verifySignature } from '../../management/callback-signature.ts';
import { confirmFromManufacturer } from '../../management/process-activation.ts';
import { isValidVin } from '../../domain/vin.ts';
import type { ManagementRoutesContext, RouteGroupOptions } from '../contexts.ts';
import { transportKind } from '../../transports/kinds.ts';
import type { RouteOptions } from '../route-options.ts';

const MAX_ACTIVATIONS = 1000;

interface CallbackBody {
  activations: { vin: string; status: 'ACTIVATED' | 'INCAPABLE' }[];
}

/**
 * `POST /management/v1/manufacturers/:manufacturer/activation-callback`: how a manufacturer whose
 * manifest says `activation.mode: "callback"` (e.g. borealis; HTTP transport only) answers
 * pending activations, signed like its HTTP ingest (docs/vehicle-management.md). Its own scope
 * keeps the raw body, which the signature covers.
 */
export default async function activationCallback(app: FastifyInstance, opts: RouteGroupOptions<ManagementRoutesContext>): Promise<void> {
  const { ctx } = opts;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.post<{ Params: { manufacturer: string }; Body: Buffer }>(
    '/management/v1/manufacturers/:manufacturer/activation-callback',
    {
      onRequest: requireJsonBody,
      schema: {
        summary: "A manufacturer's answer to pending activations (signed like its HTTP ingest)",
        tags: ['management'],
        params: { type: 'object', properties: { manufacturer: { type: 'string' } }, required: ['manufacturer'] },
        response: errorResponses(400, 403, 404, 413, 415),
      },
    },
    async (request) => {
      const adapter = ctx.adapters.get(request.params.manufacturer);
      const transport = adapter?.manifest.transport;
      // Only a transport that signs its requests (HTTP) can sign a callback; the registry refuses
      // callback mode for any other at start (src/adapters/manifest-rules.ts), so this is a guard only.
      const signing = transport ? transportKind(transport).callbackSignature?.(transport) : undefined;
      if (!adapter || adapter.manifest.activation.mode !== 'callback' || !signing) {
        throw apiErrors.notFound('No manufacturer with activation callbacks by this id.');
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers[signing.header.toLowerCase()];
      const ok = verifySignature(Array.isArray(header) ? header[0] : header, raw, adapterSecret(ctx.config, adapter), ctx.clock.now().getTime(), signing.toleranceS);
      if (!ok) throw apiErrors.forbidden('Invalid or expired signature.');
      const body = parseBody(raw);
      const invalid = body.activations.filter((a) => !isValidVin(a.vin)).map((a) => a.vin);
      if (invalid.length > 0) throw apiErrors.badRequest(`invalid VINs ${[...new Set(invalid)].join(',')}.`);
      let updated = 0;
      for (const a of body.activations) updated += await confirmFromManufacturer(ctx, adapter.manifest.id, a.vin, a.status);
      return { updated };
    },
  );
}

function parseBody(raw: Buffer): CallbackBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw apiErrors.badRequest('the request body is not valid JSON.');
  }
  if (!isCallbackBody(parsed)) {
    throw apiErrors.badRequest(`body must be {"activations": [{"vin", "status": "ACTIVATED" or "INCAPABLE"}]} with 1 to ${MAX_ACTIVATIONS} entries.`);
  }
  return parsed;
}

function isCallbackBody(v: unknown): v is CallbackBody {
  if (typeof v !== 'object' || v === null) return false;
  const a = (v as { activations?: unknown }).activations;
  if (!Array.isArray(a) || a.length === 0 || a.length > MAX_ACTIVATIONS) return false;
  return a.every(
    (e) =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as { vin?: unknown }).vin === 'string' &&
      ((e as { status?: unknown }).status === 'ACTIVATED' || (e as { status?: unknown }).status === 'INCAPABLE'),
  );
}
