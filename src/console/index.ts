import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { html } from '../consent/pages/html.ts';
import { apiErrors } from '../errors.ts';
import type { Services } from '../services.ts';
import { assetRoutes } from './assets.ts';
import { installConsoleGuard, isJsonCall, signInRoutes } from './auth.ts';
import { consumerRoutes } from './consumers.ts';
import { deliveryRoutes } from './deliveries.ts';
import { fleetRoutes } from './fleet.ts';
import { funnelRoutes } from './funnel.ts';
import { sendPage } from './page.ts';
import { pipelineRoutes } from './pipeline.ts';
import { playgroundRoutes } from './playground.ts';
import { quarantineRoutes } from './quarantine.ts';

/**
 * The operators' console under /console (docs/console.md): server-rendered pages with a little
 * script, signed in with the admin token. Its routes call the same domain functions and store
 * as the admin API (src/routes/admin/), never this service over HTTP.
 */
export default async function consolePlugin(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  // Browser pages and their scripts' calls, not the public API: kept out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  installConsoleGuard(app, services);

  // Errors are pages for a browser, a JSON message for the pages' scripts.
  app.setErrorHandler((err: Error & { statusCode?: number; retryAfterS?: number }, request, reply) => {
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) request.log.error({ err }, 'console request failed');
    const message = status === 500 ? 'Something went wrong; the log has the details.' : err.message;
    if (isJsonCall(request)) return reply.code(status).header('cache-control', 'no-store').send({ message });
    const csrf = request.consoleSession?.csrf ?? null;
    return sendPage(reply, { view: null, title: `Error ${status}`, csrf, body: html`<p role="alert" class="error">${message}</p><p><a href="/console/fleet">Back to the console</a></p>` }, status);
  });

  assetRoutes(app);
  signInRoutes(app, services);
  fleetRoutes(app, services);
  pipelineRoutes(app, services);
  quarantineRoutes(app, services);
  playgroundRoutes(app, services);
  consumerRoutes(app, services);
  deliveryRoutes(app, services);
  funnelRoutes(app, services);
  // Any other path under /console (or an id longer than the router's maxParamLength) gets the
  // console's own 404 page after the session check, not the API's JSON error body.
  app.route({
    method: ['GET', 'POST'],
    url: '/console/*',
    handler: async () => {
      throw apiErrors.notFound('No such page in the console.');
    },
  });
}
