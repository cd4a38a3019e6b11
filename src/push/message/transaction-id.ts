import { createHash } from 'node:crypto';
import type { SecretBox } from '../../crypto.ts';
import { DEFAULT_ENDPOINT } from '../../store/contract.ts';

/** Namespace of push transaction ids (a fixed random UUID, so ids never collide with another scheme's). */
const NAMESPACE = Buffer.from('6f1c2a9e4b7d4e0a9c3f8d2b1a5e7c40', 'hex');

/**
 * The transactionId of one push: a name-based UUID (version 5, SHA-1, RFC 9562) of the
 * subscription, the VIN's keyed pseudonym, the item and the point's time. The same event fanned
 * out again (a retried pipeline batch, a redelivered MQTT message) gets the same id, so the
 * deliveries table's unique index and the queue's jobId both recognise it. It is also the
 * `webhook-id` and part of Redis key names: hex and dashes only (no `.` for the signature, no
 * `:` for BullMQ). The VIN enters only through its HMAC pseudonym (never in clear in Redis): a hash of the
 * VIN itself could be reversed by trying the few million VINs behind a manufacturer's prefix.
 */
export function transactionId(
  secrets: Pick<SecretBox, 'pseudonym'>,
  subscriptionId: string,
  vin: string,
  item: string,
  timestampMs: number,
  endpointId: string = DEFAULT_ENDPOINT,
): string {
  // The default endpoint's ids are those of the time a subscription had one webhook, so a
  // redelivered event is still recognised across the upgrade; another endpoint's differ.
  const scope = endpointId === DEFAULT_ENDPOINT ? subscriptionId : `${subscriptionId}#${endpointId}`;
  const name = `${scope}|${secrets.pseudonym(vin)}|${item}|${timestampMs}`;
  const hash = createHash('sha1').update(NAMESPACE).update(name).digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
