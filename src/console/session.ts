import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex } from '../crypto.ts';
import { CONSOLE_SIGNED_OUT } from '../queues/keys.ts';
import type { ConsoleContext } from './context.ts';

/** What a session needs: its settings, the clock, the cookie's seal and the signed-out list. */
type SessionDeps = Pick<ConsoleContext, 'config' | 'clock' | 'secrets' | 'redis'>;

/** How long a session lasts (CONSOLE_SESSION_MINUTES: a working day by default); then the operator signs in again. */
const sessionTtlMs = (services: SessionDeps) => services.config.CONSOLE_SESSION_MINUTES * 60_000;

export interface ConsoleSession {
  /** The session's random id (inside the sealed cookie only). */
  id: string;
  /** The CSRF token every POST of this session must carry (form field `csrf` or header x-csrf-token). */
  csrf: string;
  expiresAt: number;
}

/** What reading the request's cookie found: a session, none, or a cookie that does not open (a forgery, or another key's). */
export type SessionRead = { session: ConsoleSession } | { none: true } | { forged: true };

interface Sealed {
  /** The session's id: random, known only inside the sealed cookie; sign-out is recorded by it. */
  s: string;
  c: string;
  e: number;
  /** A tag of the admin token the session was opened with: a new ADMIN_TOKEN ends every session. */
  t: string;
}

/** Served over https: the console's public origin (PUBLIC_URL) says so. */
export function consoleSecure(publicUrl: string): boolean {
  return publicUrl.startsWith('https:');
}

/** `__Host-` (Secure, Path=/, no Domain) when served over https, as the portal's cookie. */
export function cookieName(secure: boolean): string {
  return secure ? '__Host-cvd_console' : 'cvd_console';
}

const tokenTag = (adminToken: string | undefined) => sha256Hex(`console:${adminToken ?? ''}`).slice(0, 16);
// By the session's id, not by the cookie's text: whatever text a cookie could be spelled in, a
// signed-out session stays signed out.
const signedOutKey = (queuePrefix: string, sessionId: string) => CONSOLE_SIGNED_OUT.key(queuePrefix, sha256Hex(sessionId));

/** Equal strings, compared in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(sha256Hex(a), 'hex');
  const y = Buffer.from(sha256Hex(b), 'hex');
  return timingSafeEqual(x, y);
}

/**
 * Opens a session: the cookie holds its CSRF token and expiry, encrypted and authenticated with
 * the service's SecretBox (AES-256-GCM under SECRET_KEY), so every API process accepts it
 * without a shared session table, and nobody can read or forge it. HttpOnly, SameSite=Strict.
 */
export function openSession(services: SessionDeps, reply: FastifyReply): ConsoleSession {
  const ttlMs = sessionTtlMs(services);
  const session: ConsoleSession = { id: randomToken(16), csrf: randomToken(), expiresAt: services.clock.now().getTime() + ttlMs };
  const sealed: Sealed = { s: session.id, c: session.csrf, e: session.expiresAt, t: tokenTag(services.config.ADMIN_TOKEN) };
  const secure = consoleSecure(services.config.publicUrl);
  reply.setCookie(cookieName(secure), services.secrets.encrypt(JSON.stringify(sealed)), {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: ttlMs / 1000,
  });
  return session;
}

/**
 * The request's session; none for no cookie, an expired one, one of another admin token or one
 * signed out (sign-out records the session's id in Redis until it would have expired, so a copied
 * cookie is dead everywhere once its owner signs out); forged for a cookie that does not decrypt
 * (the caller counts it as a failed authentication).
 */
export async function readSession(services: SessionDeps, request: FastifyRequest): Promise<SessionRead> {
  const cookie = request.cookies[cookieName(consoleSecure(services.config.publicUrl))];
  if (!cookie) return { none: true };
  let sealed: Sealed;
  try {
    if (cookie.length > 1000) throw new Error('too long');
    sealed = JSON.parse(services.secrets.decrypt(cookie)) as Sealed;
  } catch {
    return { forged: true };
  }
  // Sealed by this service: a session of an earlier version (no id) just signs in again.
  if (typeof sealed.s !== 'string' || typeof sealed.c !== 'string' || typeof sealed.e !== 'number' || sealed.t !== tokenTag(services.config.ADMIN_TOKEN)) return { none: true };
  if (sealed.e <= services.clock.now().getTime()) return { none: true };
  if ((await services.redis.exists(signedOutKey(services.config.QUEUE_PREFIX, sealed.s))) === 1) return { none: true };
  return { session: { id: sealed.s, csrf: sealed.c, expiresAt: sealed.e } };
}

/** Ends the request's session for good, and clears its cookie. */
export async function closeSession(services: SessionDeps, request: FastifyRequest, reply: FastifyReply, session: ConsoleSession): Promise<void> {
  const secure = consoleSecure(services.config.publicUrl);
  const ttl = session.expiresAt - services.clock.now().getTime();
  if (ttl > 0) await services.redis.set(signedOutKey(services.config.QUEUE_PREFIX, session.id), '1', 'PX', ttl);
  reply.clearCookie(cookieName(secure), { path: '/', httpOnly: true, sameSite: 'strict', secure });
}
