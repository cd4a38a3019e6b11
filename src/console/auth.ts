import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../http/pages/html.ts';
import { randomToken } from '../crypto.ts';
import { ApiError } from '../errors.ts';
import { bearerMatcher } from '../http/bearer-token.ts';
import type { ConsoleContext, ConsolePlugin } from './context.ts';
import { sendPage } from './page.ts';
import { closeSession, consoleSecure, cookieName, openSession, readSession, sameSecret, type ConsoleSession } from './session.ts';

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession?: ConsoleSession;
  }
}

/** The sign-in form's own CSRF token (a login CSRF would sign the operator into someone else's session). */
const SIGN_IN_COOKIE = 'cvd_console_signin';
const PUBLIC = new Set(['/console/sign-in']);
const isPublic = (url: string) => PUBLIC.has(url.split('?')[0]!) || url.startsWith('/console/assets/');
/** Calls made by the pages' scripts: answered with JSON, never redirected. */
export const isJsonCall = (request: FastifyRequest) => request.url.split('?')[0]!.endsWith('.json') || request.headers['x-csrf-token'] !== undefined;

export function formOf(request: FastifyRequest): Record<string, unknown> {
  return typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
}

function refuse(request: FastifyRequest, reply: FastifyReply, status: 401 | 403 | 429, message: string): FastifyReply {
  if (isJsonCall(request) || request.method !== 'GET' || status === 429) {
    if (isJsonCall(request)) return reply.code(status).header('cache-control', 'no-store').send({ message });
    const title = status === 401 ? 'Signed out' : status === 429 ? 'Too many attempts' : 'Refused';
    return sendPage(reply, { view: null, title, csrf: null, body: html`<p role="alert">${message}</p><p><a href="/console/sign-in">Sign in</a></p>` }, status);
  }
  return reply.code(303).header('location', '/console/sign-in').send();
}

const LOCKED_OUT = 'Too many failed authentications from this address: wait and try again.';

/**
 * Every console route but the sign-in page and the assets needs a session (checked before the
 * body is read), and every POST its CSRF token: the form field `csrf`, or the header
 * x-csrf-token for the pages' scripts, compared in constant time.
 */
export function installConsoleGuard(app: FastifyInstance, services: Pick<ConsoleContext, 'config' | 'clock' | 'secrets' | 'redis' | 'authFailures'>): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!services.config.ADMIN_TOKEN) {
      return sendPage(reply, { view: null, title: 'Console disabled', csrf: null, body: html`<p>Set ADMIN_TOKEN to enable the console.</p>` }, 404);
    }
    if (isPublic(request.url)) return;
    const failures = services.authFailures;
    // A locked-out address is refused before its cookie is opened, as the admin API refuses its token.
    const locked = request.cookies[cookieName(consoleSecure(services.config.publicUrl))] ? failures.locked(request.ip) : null;
    if (locked) return refuse(request, reply.headers(locked.headers ?? {}), 429, LOCKED_OUT);
    const read = await readSession(services, request);
    if ('forged' in read) {
      // A cookie that does not decrypt is a guess at a session: counted like a wrong admin token.
      const answer = await failures.failed(request.ip, new ApiError(401, 'console cookie does not decrypt'));
      if (answer.statusCode === 429) return refuse(request, reply.headers(answer.headers ?? {}), 429, LOCKED_OUT);
    }
    if (!('session' in read)) return refuse(request, reply, 401, 'Not signed in, or the session ended. Sign in with the admin token.');
    request.consoleSession = read.session;
  });
  app.addHook('preHandler', async (request, reply) => {
    if (request.method === 'GET' || isPublic(request.url)) return;
    const header = request.headers['x-csrf-token'];
    const presented = typeof header === 'string' ? header : formOf(request).csrf;
    if (typeof presented !== 'string' || !request.consoleSession || !sameSecret(presented, request.consoleSession.csrf)) {
      return refuse(request, reply, 403, 'The request carried no valid CSRF token: reload the page and try again.');
    }
  });
}

function signInPage(reply: FastifyReply, token: string, error: string | null, status = 200): FastifyReply {
  return sendPage(
    reply,
    {
      view: null,
      title: 'Sign in',
      csrf: null,
      body: html`<form method="post" action="/console/sign-in" class="card narrow">
<input type="hidden" name="csrf" value="${token}">
${error ? html`<p class="error" role="alert" id="token-error">${error}</p>` : ''}
<label for="token">Admin token</label>
<input type="password" id="token" name="token" required autocomplete="current-password"${error ? html` aria-invalid="true" aria-describedby="token-error"` : ''}>
<p><button type="submit" class="primary">Sign in</button></p>
</form>`,
    },
    status,
  );
}

/** GET/POST /console/sign-in and POST /console/sign-out. */
export const signInView: ConsolePlugin = async (app, { ctx: services }) => {
  const matches = bearerMatcher(services.config.ADMIN_TOKEN ?? randomToken());
  const failures = services.authFailures;
  const secure = consoleSecure(services.config.publicUrl);
  const newFormToken = (reply: FastifyReply) => {
    const token = randomToken();
    reply.setCookie(SIGN_IN_COOKIE, token, { path: '/console/sign-in', httpOnly: true, sameSite: 'strict', secure, maxAge: 3600 });
    return token;
  };

  app.get('/console/sign-in', async (_request, reply) => signInPage(reply, newFormToken(reply), null));

  app.post('/console/sign-in', async (request, reply) => {
    const form = formOf(request);
    const expected = request.cookies[SIGN_IN_COOKIE];
    if (!expected || typeof form.csrf !== 'string' || !sameSecret(form.csrf, expected)) {
      return signInPage(reply, newFormToken(reply), 'The form expired: please sign in again.', 403);
    }
    const locked = failures.locked(request.ip);
    if (locked) return signInPage(reply, newFormToken(reply), 'Too many failed sign-ins from this address: wait and try again.', 429);
    if (typeof form.token !== 'string' || !matches(`Bearer ${form.token}`)) {
      // Counted like a wrong admin token on the API (src/rate-limit/auth-failures.ts).
      const answer = await failures.failed(request.ip, new ApiError(401, 'wrong admin token'));
      const status = answer.statusCode === 429 ? 429 : 401;
      return signInPage(reply, newFormToken(reply), status === 429 ? 'Too many failed sign-ins from this address: wait and try again.' : 'That is not the admin token.', status);
    }
    openSession(services, reply);
    reply.clearCookie(SIGN_IN_COOKIE, { path: '/console/sign-in' });
    return reply.code(303).header('location', '/console/fleet').send();
  });

  app.post('/console/sign-out', async (request, reply) => {
    await closeSession(services, request, reply, request.consoleSession!);
    return reply.code(303).header('location', '/console/sign-in').send();
  });
};
