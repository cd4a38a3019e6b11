import { QUEUE_NAMES } from './keys.ts';
import type { SecretBox } from '../crypto.ts';
import { openJobData, sealJobData } from './sealed-job.ts';
import type { RawMessage } from '../domain/raw-message.ts';

/** The queue between the ingest transports and the harmonize workers (partitioned: HARMONIZE_PARTITIONS). */
export const HARMONIZE_QUEUE = QUEUE_NAMES.harmonize;

/**
 * What a harmonize job carries in Redis. Raw messages hold VINs and positions, so the batch is
 * sealed with the service's secret box (AES-256-GCM): nothing personal is readable in Redis
 * (job data holds no personal data), and a tampered job fails authentication instead of being mapped.
 */
export interface HarmonizeJobData {
  v: 1;
  /** Messages in the batch (for logs and metrics, without opening it). */
  n: number;
  sealed: string;
}

/**
 * A batch's messages at most, in body and topic bytes, so that its job text stays under V8's
 * large-object size (128 KiB): as JSON (quotes escaped, about 1.3 times the bytes) then sealed
 * (base64, 4/3), 64 KiB become about 110 KiB. A larger string gets memory pages of its own,
 * mapped afresh each time: on the 2-core VMs measured, making, encoding or parsing one cost
 * 4-6 ns a byte against 0.1-0.6 below the limit, and a batch's text is made and read about six
 * times between the broker and the worker (at 100 telemetry messages a batch, 60 µs CPU a
 * message against 13 at 50).
 */
export const BATCH_MAX_BYTES = 64 * 1024;

/** What a message counts towards BATCH_MAX_BYTES. */
export const batchBytesOf = (m: RawMessage): number => m.body.length + (m.topic?.length ?? 0);

export function encodeBatch(secrets: SecretBox, messages: RawMessage[]): HarmonizeJobData {
  return sealJobData(secrets, { n: messages.length }, messages);
}

/** Throws when the job is not one we wrote with this key (wrong SECRET_KEY, corrupted data). */
export function decodeBatch(secrets: SecretBox, data: unknown): RawMessage[] {
  const messages = openJobData(secrets, data, 'harmonize');
  if (!Array.isArray(messages)) throw new Error('harmonize job does not hold a list of messages');
  return messages as RawMessage[];
}
