import type { FastifyInstance, FastifyReply } from 'fastify';
import { ensureSession, sessionHash } from './session-cookie.ts';
import { pageHeaders } from '../../http/pages/headers.ts';
import { renderWithdrawList, renderWithdrawStart } from './pages/withdrawal-pages.ts';
import { showConsents, withdraw, type ListOutcome } from '../../consent/withdrawal-consents.ts';
import { showStart, startProof, type WithdrawOutcome } from '../../consent/withdrawal-flow.ts';
import type { ConsentRoutesContext, RouteGroupOptions } from '../contexts.ts';
import { portalFormActions, sendOutcome } from './send-outcome.ts';

/**
 * Withdrawing consent at the portal (docs/consent-flow.md "Withdrawing consent"): GET and POST
 * /withdraw (the VIN, then the manufacturer), GET and POST /withdraw/consents (the list, one
 * withdrawal). The manufacturer's answer arrives at the consent callback, which hands it on by
 * its state (pages.ts). Registered inside the pages plugin: the session cookie, the per-client
 * limit and the HTML error pages are the portal's.
 */
export default async function withdrawalPages(app: FastifyInstance, opts: RouteGroupOptions<ConsentRoutesContext>): Promise<void> {
  const { ctx } = opts;
  const secure = ctx.config.consentUrl.startsWith('https:');
  const formOf = (body: unknown) => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {});

  app.get('/withdraw', { schema: { hide: true } }, async (request, reply) =>
    send(ctx, reply, await showStart(ctx, ensureSession(request, reply, secure))),
  );
  app.post('/withdraw', { schema: { hide: true } }, async (request, reply) =>
    send(ctx, reply, await startProof(ctx, formOf(request.body), sessionHash(request, secure))),
  );
  app.get('/withdraw/consents', { schema: { hide: true } }, async (request, reply) =>
    send(ctx, reply, await showConsents(ctx, sessionHash(request, secure))),
  );
  app.post('/withdraw/consents', { schema: { hide: true } }, async (request, reply) =>
    send(ctx, reply, await withdraw(ctx, formOf(request.body), sessionHash(request, secure))),
  );
}

function send(ctx: Pick<ConsentRoutesContext, 'adapters' | 'config'>, reply: FastifyReply, outcome: WithdrawOutcome | ListOutcome): FastifyReply {
  if (outcome.kind === 'withdraw-start') {
    // Its form's answer is a 303 to a manufacturer: form-action must allow their origins.
    return reply.code(outcome.status).headers(pageHeaders(portalFormActions(ctx, null))).send(renderWithdrawStart(outcome.view));
  }
  if (outcome.kind === 'withdraw-list') return reply.code(outcome.status).headers(pageHeaders([])).send(renderWithdrawList(outcome.view));
  return sendOutcome(ctx, reply, outcome);
}
