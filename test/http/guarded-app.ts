import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { consumerContext, requireSubscription } from '../../src/http/consumer-auth.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import { apiErrors } from '../../src/errors.ts';
import { StoreUnavailableError } from '../../src/store/contract.ts';
import type { Services } from '../../src/services.ts';

/**
 * A small Fastify app with the real error handler and the real consumer auth hook on one
 * route, over the given (real) services. It tests the auth layer without depending on the
 * data API routes other work owns. Routes:
 * - `GET /guarded` and `POST /guarded` (JSON body `{n: integer}`) → 200 `{consumerId, subscriptionId}`;
 * - `GET /boom` → throws an error carrying SQL and a stack (the 500 case);
 * - `GET /throw/:kind` → throws the catalogue's error of that kind (src/errors.ts);
 * - `POST /api/consent/provisioning/confirmation/:code` → 409 (the spec's own error form).
 */
export async function buildGuardedApp(services: Services, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: services.logger as FastifyBaseLogger } : {}),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
  });
  installErrorHandler(app, 1024 * 1024);
  const guard = requireSubscription(services);
  const reply = (request: Parameters<typeof consumerContext>[0]) => {
    const ctx = consumerContext(request);
    return { consumerId: ctx.consumer.consumerId, subscriptionId: ctx.subscription.subscriptionId };
  };
  app.get('/guarded', { preHandler: guard }, async (request) => reply(request));
  app.post(
    '/guarded',
    {
      preHandler: guard,
      schema: { body: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer' } }, required: ['n'] } },
    },
    async (request) => reply(request),
  );
  app.get('/boom', async () => {
    const err = new Error('SQLITE_ERROR: near "SELEC": syntax error in SELECT key_hash FROM api_keys WHERE consumer_id = ?');
    throw err;
  });
  const kinds: Record<string, () => Error> = {
    emptyVehicles: () => apiErrors.emptyList('Vehicles'),
    emptyItems: () => apiErrors.emptyList('DataItems'),
    version: () => apiErrors.unsupportedVersion('2.0'),
    items: () => apiErrors.itemsNotCovered(['a', 'b']),
    tooMany: () => apiErrors.tooManyVehicles(10),
    rateLimited: () => apiErrors.rateLimited(30),
    storeDown: () => new StoreUnavailableError(new Error('connect ECONNREFUSED 10.1.2.3:27017')),
  };
  app.get<{ Params: { kind: string } }>('/throw/:kind', async (request) => {
    throw (kinds[request.params.kind] ?? (() => new Error('unknown kind')))();
  });
  app.post('/api/consent/provisioning/confirmation/:code', async () => {
    throw apiErrors.conflict('Consent process is in a wrong state.');
  });
  await app.ready();
  return app;
}
