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

/** What a message counts towards PIPELINE_BATCH_MAX_BYTES. */
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
