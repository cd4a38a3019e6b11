import cookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance } from 'fastify';
import { html } from '../http/pages/html.ts';
import { apiErrors } from '../errors.ts';
import { toApiError } from '../http/error-handler.ts';
import { assetsView } from './assets.ts';
import { installConsoleGuard, isJsonCall, signInView } from './auth.ts';
import { consumersView } from './consumers.ts';
import type { ConsoleOptions } from './context.ts';
import { deliveriesView } from './deliveries.ts';
import { fleetView } from './fleet.ts';
import { funnelView } from './funnel.ts';
import { mappingsView } from './mappings.ts';
import { sendPage } from './page.ts';
import { pipelineView } from './pipeline.ts';
import { playgroundView } from './playground.ts';
import { quarantineView } from './quarantine.ts';
import { vehicleView } from './vehicle.ts';

/**
 * The operators' console under /console (docs/console.md): server-rendered pages with a little
 * script, signed in with the admin token. Each view is a plugin taking the console's context
 * (./context.ts, built by the composition root); they call the same domain functions and store
 * as the admin API (src/routes/admin/), never this service over HTTP.
 */
export default async function consolePlugin(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  const { ctx } = opts;
  // Browser pages and their scripts' calls, not the public API: kept out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  installConsoleGuard(app, ctx);

  // Errors are classified as the API's are (src/http/error-handler.ts), and shown as a page to
  // a browser, or as a JSON message to the pages' scripts.
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const e = toApiError(err, request, ctx.config.BODY_LIMIT_BYTES);
    reply.code(e.statusCode).headers(e.headers);
    if (isJsonCall(request)) return reply.header('cache-control', 'no-store').send({ message: e.reasonText });
    const csrf = request.consoleSession?.csrf ?? null;
    const body = html`<p role="alert" class="error">${e.reasonText}</p><p><a href="/console/fleet">Back to the console</a></p>`;
    return sendPage(reply, { view: null, title: `Error ${e.statusCode}`, csrf, body }, e.statusCode);
  });

  await app.register(assetsView);
  for (const view of [signInView, fleetView, vehicleView, pipelineView, quarantineView, playgroundView, mappingsView, consumersView, deliveriesView, funnelView]) {
    await app.register(view, opts);
  }
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
