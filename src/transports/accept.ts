import { rawMessage, type RawMessage } from '../domain/raw-message.ts';
import { metrics } from '../metrics/metrics.ts';
import { createIngest, type Ingest } from '../pipeline/ingest.ts';
import { QueueUnavailableError } from '../queues/unavailable.ts';
import type { IngestContext } from './deps.ts';

/**
 * What one transport received at once (one MQTT publish, the records of one HTTP batch, one
 * polled page), with everything accept() needs to know about how it came, filled by the
 * transport itself (as Eclipse Hono's protocol adapters fill the execution context): accept()
 * never asks which transport it was, so a new kind adds nothing here.
 */
export interface Arrival {
  manufacturer: string;
  /** The transport's kind: the `transport` label of the ingest metrics. */
  transport: string;
  messages: { messageType: string; topic?: string; bytes: Buffer | string }[];
  /** What came, for the log lines: "an HTTP batch", "a polled page", "an MQTT QoS 0 message". */
  what: string;
  /**
   * The largest message the transport lets through and the setting that says so: a larger one
   * is acknowledged and dropped for good (counted as too_large), since sent again it would be
   * refused again. Absent: the transport bounded the size before (an HTTP body by BODY_LIMIT_BYTES).
   */
  sizeLimit?: { bytes: number; setting: string };
  /**
   * `now`: queued at once, one batch per partition, while the sender waits for its answer (an
   * HTTP batch, a polled page: already a batch). `batched`: each message joins its partition's
   * batch, sent when full or after PIPELINE_BATCH_MAX_WAIT_MS (MQTT publishes, acknowledged one
   * by one, fill a batch together).
   */
  batching: 'now' | 'batched';
  /**
   * What the transport does when the queue refuses the arrival, for the log line ("closing the
   * connection without PUBACK", "answering 503"); `lost` when nothing can be withheld (an MQTT
   * QoS 0 publish), counted apart.
   */
  refused: { consequence: string; lost?: boolean };
}

/**
 * The one way raw data enters the service, whatever carried it: the size check the arrival asks
 * for, the raw messages stamped with their reception time, the durable enqueue (at once or
 * batched, as the arrival says), the metrics.
 */
export interface Acceptor {
  /**
   * Resolves once the messages are durably queued, with how many were (0: dropped for good, too
   * large; counted and logged). Rejects with QueueUnavailableError when the queue refused them
   * (counted and logged): the transport withholds its acknowledgement and the sender re-sends.
   */
  accept(arrival: Arrival): Promise<number>;
  close(): Promise<void>;
}

/**
 * `maxWaitMs`: how long a message may wait for its batch to fill (default PIPELINE_BATCH_MAX_WAIT_MS;
 * 0 where each acknowledgement waits for the previous one, as on the external broker). An
 * arrival whose `batching` is `now` is queued at once.
 */
export function createAcceptor(
  services: Pick<IngestContext, 'adapters' | 'config' | 'clock' | 'logger' | 'secrets' | 'redisUrl' | 'readiness'>,
  opts: { maxWaitMs?: number; ingest?: Ingest } = {},
): Acceptor {
  const { clock, logger } = services;
  const ingest = opts.ingest ?? createIngest(services, opts.maxWaitMs === undefined ? {} : { maxWaitMs: opts.maxWaitMs });
  return {
    async accept(arrival) {
      const { manufacturer, transport, sizeLimit } = arrival;
      const large = sizeLimit && arrival.messages.find((m) => m.bytes.length > sizeLimit.bytes);
      if (large) {
        metrics.ingestRejected.inc({ manufacturer, reason: 'too_large' });
        logger.warn({ manufacturer, transport, bytes: large.bytes.length }, `${arrival.what} over ${sizeLimit.setting} acknowledged and dropped`);
        return 0;
      }
      const receivedAt = clock.now().toISOString();
      const messages: RawMessage[] = arrival.messages.map((m) =>
        rawMessage({ manufacturer, messageType: m.messageType, receivedAt, ...(m.topic === undefined ? {} : { topic: m.topic }) }, m.bytes),
      );
      try {
        if (arrival.batching === 'now') await ingest.enqueueNow(messages);
        else await Promise.all(messages.map((m) => ingest.enqueue(m)));
      } catch (err) {
        const reason = arrival.refused.lost ? 'queue_unavailable_qos0' : 'queue_unavailable';
        metrics.ingestRejected.inc({ manufacturer, reason }, messages.length);
        logger.warn({ manufacturer, err: (err as Error).message }, `queue refused ${arrival.what}; ${arrival.refused.consequence}`);
        throw err instanceof QueueUnavailableError ? err : new QueueUnavailableError('harmonize', err);
      }
      metrics.ingestMessages.inc({ manufacturer, transport }, messages.length);
      return messages.length;
    },
    close: () => ingest.close(),
  };
}
