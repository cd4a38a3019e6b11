import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { clientErrorHandler } from './http/client-error.ts';
import { installClosingGuard } from './http/closing.ts';
import { installErrorHandler } from './http/error-handler.ts';
import { frameworkErrorHandler } from './http/framework-errors.ts';
import { swaggerOptions } from './http/openapi/document.ts';
import { requireJsonWhereBodySchema } from './http/json-only.ts';
import { requestId } from './http/request-id.ts';
import { requestLogOptions } from './http/request-log.ts';
import { installRequestMetrics } from './http/request-metrics.ts';
import { docsCsp, helmetOptions, securityHeaders, serverTimeouts } from './http/security-headers.ts';
import adminRoutes from './routes/admin/index.ts';
import catalogRoutes from './routes/catalog/index.ts';
import consentRoutes from './routes/consent/index.ts';
import deliveryRoutes from './routes/delivery/index.ts';
import healthRoutes from './routes/health/index.ts';
import ingestRoutes from './routes/ingest/index.ts';
import managementRoutes from './routes/management/index.ts';
import metricsRoutes from './routes/metrics/index.ts';
import pushRoutes from './routes/push/index.ts';
import type { RouteContexts } from './routes/contexts.ts';
import type { Services } from './services.ts';

/**
 * Builds the HTTP front: external plugins first, then the error handling, then one plugin per
 * URL group. The operators' console and the virtual wing (simulated authorization servers, demo
 * pages) are not part of it: the composition root mounts them beside (src/main/http-app.ts). Only the composition root (src/main/roles.ts) listens; tests call `app.inject()` or
 * listen on port 0. `services` sets up the server (settings, logger); each URL group gets only
 * its own context (`contexts`, src/main/route-contexts.ts).
 */
export async function buildApp(services: Services, contexts: RouteContexts): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    // The logger's serializers (src/logger.ts) keep codes, VINs and query strings out of request logs.
    loggerInstance: services.logger as FastifyBaseLogger,
    // In the try-out, request lines at debug, so the demo block stays in view (request-log.ts).
    ...requestLogOptions(config.DEMO_SEED),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Request, header and keep-alive timeouts (src/http/security-headers.ts).
    ...serverTimeouts(config),
    // src/http/request-id.ts reads x-request-id itself, accepting only sane values.
    requestIdHeader: false,
    genReqId: requestId,
    // Whose X-Forwarded-For gives request.ip (TRUST_PROXY; default: nobody's, the connection's
    // address is the client's). The consent portal's per-client limit counts by it.
    trustProxy: config.TRUST_PROXY,
    // Requests Node's parser refuses (e.g. huge headers → 431) get the contract's error body.
    clientErrorHandler,
    // So do URLs Fastify's router refuses (broken percent-encoding, over-long parameters).
    frameworkErrors: frameworkErrorHandler(config),
    // installClosingGuard answers requests during shutdown with the contract's 503 body.
    return503OnClosing: false,
    // Header names are case-insensitive in Node already; this keeps `/a/` and `/a` apart as
    // the contract's exact-match rules expect.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installRequestMetrics(app);

  // Security headers on every answer, 404s and errors included; pages set their own CSP.
  const applySecurityHeaders = securityHeaders(helmetOptions(config));
  app.addHook('onRequest', (_request, reply, done) => {
    applySecurityHeaders(reply.raw);
    done();
  });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // OpenAPI 3.1 from the route schemas, finished in src/http/openapi/document.ts (ids, reason codes, examples, webhooks).
  await app.register(swagger, swaggerOptions);
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, transformStaticCSP: docsCsp(config) });
  installErrorHandler(app, config.BODY_LIMIT_BYTES);
  installClosingGuard(app);
  // 415 for any body but JSON on every route with a body schema (before the routes exist).
  requireJsonWhereBodySchema(app);

  await app.register(healthRoutes, { ctx: contexts.health });
  await app.register(catalogRoutes, { ctx: contexts.catalog });
  await app.register(adminRoutes, { ctx: contexts.admin, prefix: '/admin/v1' });
  await app.register(consentRoutes, { ctx: contexts.consent });
  await app.register(managementRoutes, { ctx: contexts.management });
  await app.register(deliveryRoutes, { ctx: contexts.delivery });
  await app.register(pushRoutes, { ctx: contexts.push });
  await app.register(ingestRoutes, { ctx: contexts.ingest });
  await app.register(metricsRoutes, { ctx: contexts.metrics });
  return app;
}
