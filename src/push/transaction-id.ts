import { createHash } from 'node:crypto';

/** Namespace of push transaction ids (a fixed random UUID, so ids never collide with another scheme's). */
const NAMESPACE = Buffer.from('6f1c2a9e4b7d4e0a9c3f8d2b1a5e7c40', 'hex');

/**
 * The transactionId of one push: a name-based UUID (version 5, SHA-1, RFC 9562) of the
 * subscription, VIN, item and the point's time. The same event fanned out again (a retried
 * pipeline batch, a redelivered MQTT message) gets the same id, so the deliveries table's
 * unique index and the queue's jobId both recognise it. It is also the `webhook-id`: hex and
 * dashes only (no `.` for the signature, no `:` for BullMQ), and reveals nothing of the VIN.
 */
export function transactionId(subscriptionId: string, vin: string, item: string, timestampMs: number): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`${subscriptionId}|${vin}|${item}|${timestampMs}`).digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
