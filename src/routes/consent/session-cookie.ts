import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../../crypto.ts';
import { newSecret } from '../../consent/secrets.ts';

/**
 * The browser session of the consent portal: a random id in a cookie (HttpOnly, SameSite=Lax,
 * Secure and `__Host-` prefixed when the portal is served over https). Processes store only its
 * SHA-256, and the portal form's CSRF token and the manufacturer `state` are bound to it.
 * SameSite=Lax still sends it on the manufacturer's top-level redirect back to the callback.
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-cvd_consent' : 'cvd_consent';
}

const SESSION_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** The hash of the request's session, or null when it has none (or a malformed one). */
export function sessionHash(request: FastifyRequest, secure: boolean): string | null {
  const value = request.cookies[sessionCookieName(secure)];
  return value !== undefined && SESSION_FORMAT.test(value) ? sha256Hex(value) : null;
}

/** The hash of the request's session, starting a new session (and setting its cookie) if needed. */
export function ensureSession(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const existing = sessionHash(request, secure);
  if (existing !== null) return existing;
  const { value, hash } = newSecret();
  reply.setCookie(sessionCookieName(secure), value, { path: '/', httpOnly: true, sameSite: 'lax', secure });
  return hash;
}
