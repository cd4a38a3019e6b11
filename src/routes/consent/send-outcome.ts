import type { FastifyReply } from 'fastify';
import { cspOrigin, pageHeaders } from '../../consent/pages/headers.ts';
import { renderMessagePage } from '../../consent/pages/message-page.ts';
import { renderPortalPage } from '../../consent/pages/portal-page.ts';
import type { Outcome } from '../../consent/outcome.ts';
import { manufacturerAuth } from '../../consent/manufacturer-auth.ts';
import type { Services } from '../../services.ts';

/**
 * Where a portal form may post and be redirected to: this service, every manufacturer's
 * authorization endpoint (approve) and the consumer's redirect origin (reject, errors).
 */
export function portalFormActions(services: Pick<Services, 'adapters' | 'config'>, redirectUrl: string | null): string[] {
  const origins = services.adapters.list().map((a) => cspOrigin(manufacturerAuth(services.config, a).authorizationEndpoint));
  if (redirectUrl !== null) origins.push(cspOrigin(redirectUrl));
  return [...new Set(origins.filter((o): o is string => o !== null))];
}

/** Writes an {@link Outcome}: 303 (never 307, which would re-post the consent form to the next page), a message page or the portal. */
export function sendOutcome(services: Pick<Services, 'adapters' | 'config'>, reply: FastifyReply, outcome: Outcome): FastifyReply {
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
      .headers(pageHeaders(portalFormActions(services, outcome.record.redirectUrl)))
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
