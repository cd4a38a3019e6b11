import { VERIFY_SCOPE } from '../../consent/index.ts';
import type { Realm, RegisteredClient } from './realm.ts';

/** A checked authorization request of the simulated server. */
export interface AuthorizeRequest {
  client: RegisteredClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  /** Requested items this manufacturer can grant; others are silently not offered (RFC 6749 3.3). */
  scope: string[];
  vin: string;
}

export type AuthorizeCheck =
  | { ok: true; request: AuthorizeRequest }
  | { ok: false; page: string }
  | { ok: false; redirect: string };

const one = (q: Record<string, unknown>, k: string): string | undefined => (typeof q[k] === 'string' ? (q[k] as string) : undefined);

/** The redirect back to the client, with `state` and `iss` (RFC 9207) on every answer. */
export function clientRedirect(realm: Realm, redirectUri: string, state: string | null, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', realm.issuer);
  return url.toString();
}

/**
 * RFC 6749 4.1.1 and 4.1.2.1: an unknown client or a redirect_uri that is not exactly the
 * registered one is an error page, never a redirect; every other error is redirected to the
 * client. PKCE S256 is required.
 */
export function checkAuthorizeRequest(realm: Realm, q: Record<string, unknown>): AuthorizeCheck {
  const client = realm.clients.get(one(q, 'client_id') ?? '');
  if (!client) return { ok: false, page: 'Unknown client.' };
  const redirectUri = one(q, 'redirect_uri');
  if (redirectUri !== client.redirectUri) return { ok: false, page: 'The redirect_uri is not registered for this client.' };
  const state = one(q, 'state') ?? null;
  const err = (error: string, description: string) =>
    ({ ok: false, redirect: clientRedirect(realm, redirectUri, state, { error, error_description: description }) }) as const;
  if (one(q, 'response_type') !== 'code') return err('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = one(q, 'code_challenge');
  if (one(q, 'code_challenge_method') !== 'S256' || !challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return err('invalid_request', 'PKCE with code_challenge_method=S256 is required.');
  }
  // Besides its items, the server offers the proof of control of a vehicle (a withdrawal's scope).
  const scope = (one(q, 'scope') ?? '').split(' ').filter((s) => realm.items.has(s) || s === VERIFY_SCOPE);
  if (scope.length === 0) return err('invalid_scope', 'None of the requested items is available.');
  return { ok: true, request: { client, redirectUri, state, codeChallenge: challenge, scope: [...new Set(scope)], vin: one(q, 'vin') ?? '' } };
}
