import type { FastifyReply } from 'fastify';
import { cspOrigin, pageHeaders } from '../../http/pages/headers.ts';
import { renderMessagePage } from '../../http/pages/message-page.ts';
import { renderPortalPage } from './pages/portal-page.ts';
import type { Outcome } from '../../consent/outcome.ts';
import { manufacturerAuth } from '../../consent/manufacturer-auth.ts';
import type { ConsentRoutesContext } from '../contexts.ts';

/**
 * Where a portal form may post and be redirected to: this service, every manufacturer's
 * authorization endpoint (approve) and the consumer's redirect origin (reject, errors).
 */
export function portalFormActions(ctx: Pick<ConsentRoutesContext, 'adapters' | 'config'>, redirectUrl: string | null): string[] {
  const origins = ctx.adapters.list().map((a) => cspOrigin(manufacturerAuth(ctx.config, a).authorizationEndpoint));
  if (redirectUrl !== null) origins.push(cspOrigin(redirectUrl));
  return [...new Set(origins.filter((o): o is string => o !== null))];
}

/** Writes an {@link Outcome}: 303 (never 307, which would re-post the consent form to the next page), a message page or the portal. */
export function sendOutcome(ctx: Pick<ConsentRoutesContext, 'adapters' | 'config'>, reply: FastifyReply, outcome: Outcome): FastifyReply {
  if (outcome.kind === 'redirect') {
    return reply
      .code(303)
      .headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
      .header('location', outcome.location)
      .send();
  }
  if (outcome.kind === 'portal') {
    return reply
      .code(outcome.status)
      .headers(pageHeaders(portalFormActions(ctx, outcome.record.redirectUrl)))
      .send(renderPortalPage(outcome.view));
  }
  return reply
    .code(outcome.status)
    .headers(pageHeaders([]))
    .send(renderMessagePage({ title: outcome.title, paragraphs: outcome.paragraphs, alert: outcome.status >= 400 }));
}

/** An error page (no redirect, no Location): a bad request is never sent on to an unchecked URL. */
export function sendErrorPage(reply: FastifyReply, status: number, title: string, ...paragraphs: string[]): FastifyReply {
  return reply.code(status).headers(pageHeaders([])).send(renderMessagePage({ title, paragraphs, alert: true }));
}
