import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';

/**
 * One raw message as an adapter received it, on its way through the queue. It carries the
 * bytes exactly as received so a quarantined message can be shown and reprocessed unchanged.
 */
export interface RawMessage {
  manufacturer: string;
  messageType: string;
  /** When the service received it (ISO 8601); events use it as their `receivedAt`. */
  receivedAt: string;
  /** MQTT topic, when it came over MQTT. */
  topic?: string;
  /** UTF-8 text, or base64 when the bytes were not valid UTF-8 (they fail decoding then). */
  body: string;
  encoding: 'utf8' | 'base64';
  /** Set when an operator reprocesses a quarantined message: its quarantine id and when. */
  reprocess?: { quarantineId: string; at: string };
}

export function rawMessage(fields: Omit<RawMessage, 'body' | 'encoding'>, bytes: Buffer | string): RawMessage {
  if (typeof bytes === 'string') return { ...fields, body: bytes, encoding: 'utf8' };
  return isUtf8(bytes)
    ? { ...fields, body: bytes.toString('utf8'), encoding: 'utf8' }
    : { ...fields, body: bytes.toString('base64'), encoding: 'base64' };
}

/**
 * The quarantine id of a message: a hash of who sent what, so the same bytes quarantined twice
 * (a redelivered batch, a re-sent publish) are one entry.
 */
export function quarantineIdOf(m: RawMessage): string {
  return createHash('sha256')
    .update(`${m.manufacturer}\n${m.messageType}\n${m.encoding}\n`)
    .update(m.body)
    .digest('base64url')
    .slice(0, 32);
}
