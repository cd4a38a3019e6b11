import { createHmac, timingSafeEqual } from 'node:crypto';

/** Lifetime of an access token of the simulated API. */
export const TOKEN_TTL_S = 3600;

const mac = (secret: string, exp: number) => createHmac('sha256', secret).update(`api-token:${exp}`).digest('base64url');

/**
 * An access token of the simulated polled API: its expiry, signed with the client's secret, so
 * every process serving the API checks it without shared state, and a new secret revokes them all.
 */
export function issueApiToken(secret: string, nowMs: number): string {
  const exp = Math.floor(nowMs / 1000) + TOKEN_TTL_S;
  return `kt.${exp}.${mac(secret, exp)}`;
}

export function isValidApiToken(secret: string, authorization: string | undefined, nowMs: number): boolean {
  const m = /^Bearer kt\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(authorization ?? '');
  if (!m) return false;
  const exp = Number(m[1]);
  return exp * 1000 > nowMs && same(m[2]!, mac(secret, exp));
}

/** Whether an HTTP Basic header names this client with this secret (RFC 6749 section 2.3.1: both form-encoded). */
export function isClient(authorization: string | undefined, clientId: string, secret: string): boolean {
  const m = /^Basic ([A-Za-z0-9+/=]{1,1000})$/.exec(authorization ?? '');
  if (!m) return false;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  try {
    return same(decodeURIComponent(decoded.slice(0, colon)), clientId) && same(decodeURIComponent(decoded.slice(colon + 1)), secret);
  } catch {
    return false;
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
