import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Socket } from 'node:net';
import { pageHeaders } from '../../http/pages/headers.ts';
import { VERIFY_SCOPE } from '../../consent/index.ts';
import { renderMessagePage } from '../../http/pages/message-page.ts';
import { renderAuthorizePage, type AuthorizeView } from './authorize-page.ts';
import { checkAuthorizeRequest, clientRedirect, type AuthorizeRequest } from './authorize.ts';
import { issueCode } from './codes.ts';
import { getFault } from './fault.ts';
import { realmAt, type Realm } from './realm.ts';
import { exchange } from './token.ts';
import type { WingContext } from '../../http/wing-contract.ts';
import type { RouteOptions } from '../../routes/route-options.ts';

const VERIFY_LABEL = 'Confirm that you control this vehicle (no vehicle data is shared)';

/** How long the `timeout` fault holds a token request (the client gives up long before). */
const TIMEOUT_FAULT_HOLD_MS = 30_000;

/**
 * A manufacturer's simulated OAuth 2.0 authorization server, mounted at /oem/virtual (and, with
 * other settings derived from its prefix, at /oem/borealis). The consent service reaches it
 * over HTTP exactly as it would a real one: the browser at /authorize, the server at /token.
 */
export default async function routes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { services } = opts;
  const realm = realmAt(services, app.prefix);
  const prefix = services.config.QUEUE_PREFIX;

  // Requests held by the `timeout` fault; released when the app closes so closing never waits.
  const held = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const release of held) release();
  });

  app.setErrorHandler((err: Error & { statusCode?: number }, request, reply) => {
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'simulated authorization server failed');
    return errorPage(reply, status, status === 500 ? 'Something went wrong.' : 'The request could not be read.');
  });

  app.get('/authorize', { schema: { hide: true } }, async (request, reply) => {
    const check = checkAuthorizeRequest(realm, request.query as Record<string, unknown>);
    if (!check.ok) return 'page' in check ? errorPage(reply, 400, check.page) : redirect(reply, check.redirect);
    return authorizePage(services, reply, realm, check.request, 200, check.request.vin, '', new Set(check.request.scope), null);
  });

  app.post('/authorize', { schema: { hide: true } }, async (request, reply) => {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
    const check = checkAuthorizeRequest(realm, form);
    if (!check.ok) return 'page' in check ? errorPage(reply, 400, check.page) : redirect(reply, check.redirect);
    const req = check.request;
    if (form.decision !== 'allow') {
      return redirect(reply, clientRedirect(realm, req.redirectUri, req.state, { error: 'access_denied', error_description: 'The user denied the request.' }));
    }
    const username = typeof form.username === 'string' ? form.username.trim() : '';
    const password = typeof form.password === 'string' ? form.password : '';
    const vin = typeof form.vin === 'string' ? form.vin.trim().toUpperCase() : '';
    const raw = form.item;
    const ticked = new Set((Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((i): i is string => typeof i === 'string'));
    const granted = req.scope.filter((i) => ticked.has(i));
    if (username === '' || password === '' || vin === '') {
      return authorizePage(services, reply, realm, req, 400, vin, username, ticked, 'Enter a user name, a password and the VIN.');
    }
    const code = await issueCode(services.redis, services.secrets, prefix, realm.id, {
      clientId: req.client.clientId,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      scope: granted,
      vin,
    });
    return redirect(reply, clientRedirect(realm, req.redirectUri, req.state, { code }));
  });

  app.post('/token', { schema: { hide: true } }, async (request, reply) => {
    const fault = await getFault(services.redis, prefix, realm.id);
    if (fault === 'down') {
      // As if the server were unreachable: the connection dies without an answer.
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    if (fault === 'timeout') {
      // Never answers: after the client gave up (or the hold ends) the connection is dropped.
      await holdUntilGone(request.raw.socket, held);
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
    const result = await exchange(services.redis, services.secrets, prefix, realm, body, request.headers.authorization);
    return reply.code(result.status).headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(result.body);
  });
}

/** Waits until the client gives up (its socket ends), the app closes, or the hold time ends. */
function holdUntilGone(socket: Socket, held: Set<() => void>): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const release = () => {
      clearTimeout(timer);
      socket.off('end', release);
      socket.off('close', release);
      held.delete(release);
      resolve();
    };
    const timer = setTimeout(release, TIMEOUT_FAULT_HOLD_MS);
    // The client's FIN arrives as 'end' (the server keeps half-open sockets to answer), 'close' after.
    socket.once('end', release);
    socket.once('close', release);
    held.add(release);
  });
}

function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).header('location', location).send();
}

function errorPage(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).headers(pageHeaders([])).send(renderMessagePage({ title: 'Authorization request refused', paragraphs: [message], alert: true }));
}

function authorizePage(
  services: Pick<WingContext, 'catalog'>,
  reply: FastifyReply,
  realm: Realm,
  req: AuthorizeRequest,
  status: number,
  vin: string,
  username: string,
  checked: ReadonlySet<string>,
  error: string | null,
): FastifyReply {
  const hidden: Record<string, string> = {
    response_type: 'code',
    client_id: req.client.clientId,
    redirect_uri: req.redirectUri,
    scope: req.scope.join(' '),
    code_challenge: req.codeChallenge,
    code_challenge_method: 'S256',
  };
  if (req.state !== null) hidden.state = req.state;
  const view: AuthorizeView = {
    realmName: realm.name,
    actionUrl: `${realm.issuer}/authorize`,
    hidden,
    vin,
    username,
    items: req.scope.map((t) => ({ technicalName: t, name: t === VERIFY_SCOPE ? VERIFY_LABEL : (services.catalog.get(t)?.name ?? t), checked: checked.has(t) })),
    error,
  };
  // The answer to this form redirects to the client's callback and on to the consumer, and
  // browsers check form-action along that whole chain; a manufacturer cannot know the
  // consumer, so its pages set no form-action (everything else stays locked down).
  return reply.code(status).headers(pageHeaders(null)).send(renderAuthorizePage(view));
}
