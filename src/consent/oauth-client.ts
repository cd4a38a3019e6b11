import { flowError, type FlowError } from './flow-errors.ts';
import type { ManufacturerAuth } from './manufacturer-auth.ts';

/**
 * The service as an OAuth 2.0 client of a manufacturer's authorization server: the
 * authorization code flow with `state` and PKCE S256 (against forged callbacks and stolen codes).
 */
export function authorizationUrl(
  auth: ManufacturerAuth,
  p: { state: string; codeChallenge: string; scope: readonly string[]; vin: string },
): string {
  const url = new URL(auth.authorizationEndpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', auth.clientId);
  url.searchParams.set('redirect_uri', auth.redirectUri);
  url.searchParams.set('scope', p.scope.join(' '));
  url.searchParams.set('state', p.state);
  url.searchParams.set('code_challenge', p.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  // Not standard OAuth: lets the manufacturer pre-fill the vehicle the user consents for.
  url.searchParams.set('vin', p.vin);
  return url.toString();
}

/**
 * What the manufacturer granted. The token response names the granted items (`scope`) and the
 * vehicle (`vin`); the token itself is not needed afterwards and is dropped here, never stored
 * or logged (whoever reads either must not get the manufacturer's access).
 */
export interface Grant {
  /** Granted items; null when the server sent no `scope` (= as requested). */
  scope: string[] | null;
  vin: string | null;
}

export type ExchangeResult = { ok: true; grant: Grant } | { ok: false; error: FlowError };

/** Exchanges the code at the token endpoint, server to server, within `timeoutMs`. */
export async function exchangeCode(
  auth: ManufacturerAuth,
  p: { code: string; codeVerifier: string },
  timeoutMs: number,
): Promise<ExchangeResult> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: p.code,
    redirect_uri: auth.redirectUri,
    client_id: auth.clientId,
    code_verifier: p.codeVerifier,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (auth.clientSecret !== undefined) {
    // RFC 6749 2.3.1: both parts form-encoded before Basic.
    const user = encodeURIComponent(auth.clientId);
    const pass = encodeURIComponent(auth.clientSecret);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  let res: Response;
  let text: string;
  try {
    // One signal bounds the whole exchange, the body included; redirects are not followed.
    res = await fetch(auth.tokenEndpoint, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      return fail('communication_timeout', `${auth.name} did not answer within ${timeoutMs} ms.`);
    }
    return fail('connection_error', `The connection to ${auth.name} failed.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.status >= 500 || (res.status >= 300 && res.status < 400)) {
    return fail('connection_error', `${auth.name} answered with HTTP ${res.status}.`);
  }
  if (res.status !== 200) {
    const e = typeof json === 'object' && json !== null ? (json as Record<string, unknown>).error : undefined;
    return fail('invalid_request', `${auth.name} refused the authorization code (${typeof e === 'string' ? e : `HTTP ${res.status}`}).`);
  }
  return parseGrant(auth, json);
}

function parseGrant(auth: ManufacturerAuth, json: unknown): ExchangeResult {
  if (typeof json !== 'object' || json === null) return fail('connection_error', `${auth.name} sent an unreadable token response.`);
  const r = json as Record<string, unknown>;
  if (typeof r.access_token !== 'string' || r.access_token === '') {
    return fail('connection_error', `${auth.name} sent a token response without a token.`);
  }
  // RFC 6749 5.1: a response without `scope` grants exactly what was requested.
  const scope = typeof r.scope === 'string' ? r.scope.split(' ').filter(Boolean) : null;
  return { ok: true, grant: { scope, vin: typeof r.vin === 'string' ? r.vin : null } };
}

const fail = (code: FlowError['code'], description: string): ExchangeResult => ({ ok: false, error: flowError(code, description) });
