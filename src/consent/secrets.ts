import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex } from '../crypto.ts';

/**
 * Random one-time values of the flow. All come from the CSPRNG with 256 bits (unguessable);
 * only their SHA-256 is stored, so a database dump reveals no usable code, state or token.
 */
export function newSecret(): { value: string; hash: string } {
  const value = randomToken(32);
  return { value, hash: sha256Hex(value) };
}

/** A PKCE verifier (RFC 7636: 43–128 characters of the unreserved set) and its S256 challenge. */
export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomToken(32);
  return { verifier, challenge: s256(verifier) };
}

/**
 * The OAuth `state` of an approval, derived from its PKCE verifier (secret, 256 random bits,
 * stored only sealed) with a label that keeps it apart from the S256 challenge. So a repeated
 * approval (a double click on Approve) can send the user to the same authorization URL again
 * without storing the state itself.
 */
export function oauthStateFor(verifier: string): { value: string; hash: string } {
  const value = createHash('sha256').update(`oauth-state:${verifier}`, 'ascii').digest('base64url');
  return { value, hash: sha256Hex(value) };
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}
