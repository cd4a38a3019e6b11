import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks a manufacturer's signature header `t=<epoch s>,v1=<hex HMAC-SHA256>` over
 * `${t}.${raw body}`: the same scheme as the manufacturer's HTTP ingest (adapter manifest
 * `transport.signatureHeader`), keyed with the same adapter secret, so a manufacturer signs its
 * activation callbacks exactly like its telemetry. `toleranceS` bounds replays.
 * Several `v1=` values are accepted (secret rotation).
 */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secret: string,
  nowMs: number,
  toleranceS: number,
): boolean {
  if (!header || header.length > 1024) return false;
  let t: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) t = Number(v);
    if (k === 'v1' && v && /^[0-9a-f]{64}$/i.test(v)) signatures.push(v.toLowerCase());
  }
  if (t === undefined || signatures.length === 0) return false;
  if (Math.abs(nowMs / 1000 - t) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
}

/** The header value a manufacturer sends (tests, the CLI, documentation examples). */
export function signBody(rawBody: string | Buffer, secret: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return `t=${t},v1=${v1}`;
}
