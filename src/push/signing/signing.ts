import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of a signing secret, as Standard Webhooks and Svix show them. */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks allows 24–64). */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: the base64-decoded part after `whsec_` (a bare base64 secret works too). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * One Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
 * `body` must be the exact bytes sent (serialize once, sign those, send those).
 */
export function sign(key: Buffer, id: string, timestampSeconds: number, body: string | Buffer): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per key, space-separated (rotation sends two). */
export function signatureHeader(keys: Buffer[], id: string, timestampSeconds: number, body: string | Buffer): string {
  return keys.map((k) => sign(k, id, timestampSeconds, body)).join(' ');
}
