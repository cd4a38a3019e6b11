import { timingSafeEqual } from 'node:crypto';
import { secretKey, sign } from './signing.ts';

/**
 * Verifies a webhook from this service (Standard Webhooks), for consumers. Copy this file or
 * import it; it needs only node:crypto. See docs/webhooks.md.
 *
 * @param secret  the `whsec_…` signing secret shown when the webhook was registered
 * @param headers the request headers (any case; a Fetch `Headers` works too)
 * @param rawBody the raw request body, exactly as received: never re-serialized JSON
 * @returns the parsed JSON payload
 * @throws WebhookVerificationError when a header is missing, no signature matches, or the
 *   timestamp is more than `toleranceSeconds` away from `now` (either direction)
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  rawBody: string | Buffer,
  opts: { toleranceSeconds?: number; now?: Date | number } = {},
): unknown {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required headers');

  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) throw new WebhookVerificationError('Invalid Signature Headers');
  const nowSeconds = Math.floor(new Date(opts.now ?? Date.now()).getTime() / 1000);
  const tolerance = opts.toleranceSeconds ?? 300;
  if (nowSeconds - seconds > tolerance) throw new WebhookVerificationError('Message timestamp too old');
  if (seconds - nowSeconds > tolerance) throw new WebhookVerificationError('Message timestamp too new');

  // Compared as base64 text, not decoded bytes: Node's base64 decoder skips stray characters,
  // and a signature with junk appended must not pass.
  const expected = Buffer.from(sign(secretKey(secret), id, seconds, rawBody).slice('v1,'.length));
  for (const candidate of signatures.split(' ')) {
    const comma = candidate.indexOf(',');
    if (comma < 0 || candidate.slice(0, comma) !== 'v1') continue;
    const presented = Buffer.from(candidate.slice(comma + 1));
    // Constant-time compare; lengths differ only for a malformed signature, which says nothing secret.
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) {
      const text = Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody;
      return text === '' ? undefined : JSON.parse(text);
    }
  }
  throw new WebhookVerificationError('No matching signature found');
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderSource = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}
