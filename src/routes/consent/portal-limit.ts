import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientKey } from '../../rate-limit/client-key.ts';
import { createFixedWindowLimiter, type FixedWindowLimiter } from '../../rate-limit/fixed-window.ts';
import { rateLimitHeaders } from '../../rate-limit/headers.ts';
import { RATE_LIMIT_PORTAL } from '../../queues/keys.ts';
import type { ConsentRoutesContext } from '../contexts.ts';
import { sendErrorPage } from './send-outcome.ts';

/** "about 40 seconds" / "about 5 minutes": the 429 page speaks to a person. */
function waitText(seconds: number): string {
  return seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/**
 * The per-client limit of the unauthenticated consent pages (the portal and the manufacturers'
 * callbacks): RATE_LIMIT_PORTAL_MAX requests per RATE_LIMIT_PORTAL_WINDOW_S and client address
 * (request.ip, which follows X-Forwarded-For only from the proxies in TRUST_PROXY; IPv6 per
 * /64). A decision at the portal stores a process (a visit stores nothing,
 * src/consent/portal-entry.ts), so this bounds how fast one client can fill the store. Counted in Redis with the data API's fixed-window limiter, before the
 * request body is read; keyed by a keyed hash of the address, so Redis holds no IP address.
 *
 * Over the limit: an HTML 429 page (the portal is a no-JS page) with Retry-After and the
 * RateLimit headers. Redis down or slow: the request passes (fail open, as the data API's
 * limits do).
 */
export function portalRateLimit(ctx: Pick<ConsentRoutesContext, 'clock' | 'config' | 'logger' | 'redis' | 'secrets'>, limiter?: FixedWindowLimiter) {
  const { config, secrets } = ctx;
  const l = limiter ?? createFixedWindowLimiter(ctx.redis, ctx.clock, ctx.logger);
  return async function portalLimitHook(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const key = RATE_LIMIT_PORTAL.key(config.QUEUE_PREFIX, secrets.pseudonym(`ip:${clientKey(request.ip)}`));
    const states = await l.hit([{ key, limit: config.RATE_LIMIT_PORTAL_MAX, windowS: config.RATE_LIMIT_PORTAL_WINDOW_S }]);
    const state = states?.[0];
    if (!state || state.allowed) return undefined;
    reply.headers({ ...rateLimitHeaders(state), 'retry-after': String(state.resetS) });
    // Returning the reply ends the request here: the route handler never runs.
    return sendErrorPage(
      reply,
      429,
      'Too many requests',
      'Too many requests to this consent service came from your network in a short time.',
      `Please wait ${waitText(state.resetS)}, then start again from the application that sent you here.`,
    );
  };
}
