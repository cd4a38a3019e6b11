import type { RedisClient } from '../../queues/redis.ts';
import { randomToken, type SecretBox } from '../../crypto.ts';
import { s256, safeEqual } from '../../consent/index.ts';
import { redeemCode } from './codes.ts';
import type { Realm } from './realm.ts';

/**
 * The simulated token response. Besides the standard fields it says which items were granted
 * (`scope`) and for which vehicle (`vin`): what the consent service checks.
 */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  vin: string;
}

export type TokenResult = { status: 200; body: TokenResponse } | { status: 400 | 401; body: { error: string; error_description: string } };

const one = (b: Record<string, unknown>, k: string): string | undefined => (typeof b[k] === 'string' ? (b[k] as string) : undefined);

/** Client id and secret from HTTP Basic (RFC 6749 2.3.1), or null. */
function basicAuth(header: string | undefined): { id: string; secret: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m?.[1]) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  try {
    return { id: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
  } catch {
    return null;
  }
}

/** POST /token: the authorization_code grant with PKCE (RFC 6749 4.1.3, RFC 7636 4.6). */
export async function exchange(
  redis: RedisClient,
  secrets: SecretBox,
  prefix: string,
  realm: Realm,
  body: Record<string, unknown>,
  authorization: string | undefined,
): Promise<TokenResult> {
  const bad = (error: string, description: string, status: 400 | 401 = 400): TokenResult => ({
    status,
    body: { error, error_description: description },
  });
  if (one(body, 'grant_type') !== 'authorization_code') return bad('unsupported_grant_type', 'Only authorization_code is supported.');
  const basic = basicAuth(authorization);
  const clientId = basic?.id ?? one(body, 'client_id');
  const client = realm.clients.get(clientId ?? '');
  if (!client) return bad('invalid_client', 'Unknown client.', 401);
  if (client.secret !== undefined && (!basic || !safeEqual(basic.secret, client.secret))) {
    return bad('invalid_client', 'Client authentication failed.', 401);
  }
  const code = one(body, 'code');
  const verifier = one(body, 'code_verifier');
  if (!code || !verifier) return bad('invalid_request', 'code and code_verifier are required.');
  const grant = await redeemCode(redis, secrets, prefix, realm.id, code);
  if (!grant || grant.clientId !== client.clientId) return bad('invalid_grant', 'The code is unknown, used or expired.');
  if (one(body, 'redirect_uri') !== grant.redirectUri) return bad('invalid_grant', 'redirect_uri differs from the authorization request.');
  if (!safeEqual(s256(verifier), grant.codeChallenge)) return bad('invalid_grant', 'code_verifier does not match the code_challenge.');
  return {
    status: 200,
    body: { access_token: randomToken(32), token_type: 'Bearer', expires_in: 3600, scope: grant.scope.join(' '), vin: grant.vin },
  };
}
