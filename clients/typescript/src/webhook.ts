/**
 * Verifies a push of the service the Standard Webhooks way (https://www.standardwebhooks.com/),
 * with WebCrypto only (Node 20+, browsers, edge runtimes): HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64 part of the `whsec_`
 * secret; any one of the space-separated `v1,` signatures may match (secret rotation);
 * timestamps more than `toleranceSeconds` from now are refused (replays).
 */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** Compares without stopping at the first difference (no timing hint about the signature). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/**
 * Returns the parsed body when the push is genuine; throws WebhookVerificationError otherwise.
 * Pass the raw body exactly as received (never re-serialized JSON).
 */
export async function verifyWebhook<T = unknown>(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  opts: { toleranceSeconds?: number; now?: Date } = {},
): Promise<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required headers');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid Signature Headers');
  const age = Math.floor((opts.now ?? new Date()).getTime() / 1000) - Number(timestamp);
  const tolerance = opts.toleranceSeconds ?? 300;
  if (age > tolerance) throw new WebhookVerificationError('Message timestamp too old');
  if (age < -tolerance) throw new WebhookVerificationError('Message timestamp too new');

  const body = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody;
  const key = await crypto.subtle.importKey('raw', fromBase64(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signed = new Uint8Array([...new TextEncoder().encode(`${id}.${timestamp}.`), ...body]);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
  const matches = signatures.split(' ').some((s) => {
    const [version, value] = s.split(',');
    return version === 'v1' && value !== undefined && sameBytes(fromBase64(value), expected);
  });
  if (!matches) throw new WebhookVerificationError('No matching signature found');
  return JSON.parse(new TextDecoder().decode(body)) as T;
}
