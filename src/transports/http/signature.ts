import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HTTP ingest signatures: `<header>: t=<epoch seconds>,v1=<hex>` where the hex is
 * HMAC-SHA256(secret, `${t}.${raw body}`). The timestamp is signed, so an old request cannot be
 * replayed with a fresh one; a replay inside the tolerance window is harmless because storing
 * is idempotent. Several `v1=` values are accepted so a manufacturer can sign with an old and a
 * new secret while rotating.
 */
export function signBody(secret: string, timestampS: number, body: Buffer | string): string {
  const mac = createHmac('sha256', secret).update(`${timestampS}.`).update(body).digest('hex');
  return `t=${timestampS},v1=${mac}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'expired' | 'mismatch' };

export function verifySignature(
  header: string | undefined,
  body: Buffer,
  secret: string,
  nowMs: number,
  toleranceS: number,
): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing' };
  let t: number | undefined;
  const macs: Buffer[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && v && /^[0-9a-f]{64}$/i.test(v)) macs.push(Buffer.from(v, 'hex'));
  }
  if (t === undefined || macs.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowMs / 1000 - t) > toleranceS) return { ok: false, reason: 'expired' };
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  return macs.some((m) => timingSafeEqual(m, expected)) ? { ok: true } : { ok: false, reason: 'mismatch' };
}
