import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { handleCallback } from '../../consent/callback-flow.ts';
import { entryRefused } from '../../consent/outcome.ts';
import { checkPortalRequest } from '../../consent/portal-request.ts';
import { decide, showPortal } from '../../consent/portal-flow.ts';
import { ensureSession, sessionHash } from './session-cookie.ts';
import { handleWithdrawalCallback, isWithdrawalState } from '../../consent/withdrawal-flow.ts';
import type { ConsentRoutesContext, RouteGroupOptions } from '../contexts.ts';
import { portalRateLimit } from './portal-limit.ts';
import { sendErrorPage, sendOutcome } from './send-outcome.ts';
import withdrawal from './withdrawal.ts';

/**
 * The browser-facing part of the consent flow: the portal (GET and POST /provision), the
 * manufacturers' callbacks (GET /callback/:manufacturer) and the withdrawal pages (withdrawal.ts). Server-rendered HTML that needs no
 * JavaScript; every answer, errors included, carries the page security headers.
 */
export default async function consentPages(app: FastifyInstance, opts: RouteGroupOptions<ConsentRoutesContext>): Promise<void> {
  const { ctx } = opts;
  const secure = ctx.config.consentUrl.startsWith('https:');
  await app.register(cookie);

  // Per client address, before anything is read or stored (src/routes/consent/portal-limit.ts).
  app.addHook('onRequest', portalRateLimit(ctx));

  // Errors on these routes are pages, not the JSON error body of the API.
  app.setErrorHandler((err: Error & { statusCode?: number }, request, reply) => {
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'consent page failed');
    return sendErrorPage(reply, status, status === 500 ? 'Something went wrong' : 'The request could not be read', 'Please start again from the application that sent you here.');
  });

  app.get('/provision', { schema: { hide: true } }, async (request, reply) => {
    const check = await checkPortalRequest(ctx, request.query as Record<string, unknown>);
    if (!check.ok) return sendOutcome(ctx, reply, entryRefused(check.message, check.backTo));
    const session = ensureSession(request, reply, secure);
    return sendOutcome(ctx, reply, showPortal(ctx, check.request, session));
  });

  app.post('/provision', { schema: { hide: true } }, async (request, reply) => {
    const form = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
    return sendOutcome(ctx, reply, await decide(ctx, form, sessionHash(request, secure)));
  });

  app.get<{ Params: { manufacturer: string } }>('/callback/:manufacturer', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    // One registered redirect URI per manufacturer: a withdrawal's answer is told apart by its state.
    const handle = isWithdrawalState(query) ? handleWithdrawalCallback : handleCallback;
    const outcome = await handle(ctx, request.params.manufacturer, query, sessionHash(request, secure));
    return sendOutcome(ctx, reply, outcome);
  });

  // Withdrawing consent (GET/POST /withdraw, /withdraw/consents): same session, limit and error pages.
  await app.register(withdrawal, opts);
}
