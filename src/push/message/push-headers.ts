import { signatureHeader } from '../signing/signing.ts';

/**
 * The headers of one webhook POST, a push or a test event alike: JSON, the Standard Webhooks
 * triple (`webhook-id`, `webhook-timestamp`, `webhook-signature` over exactly `body`, one
 * signature per key during a rotation) and the consumer's own Authorization value when it set one.
 */
export function pushHeaders(keys: Buffer[], webhookId: string, now: Date, body: string, authorization: string | null): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'cvd-webhooks/1.0',
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(keys, webhookId, timestamp, body),
  };
  if (authorization !== null) headers.authorization = authorization;
  return headers;
}
