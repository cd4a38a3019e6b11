import { rawMessage, type RawMessage } from '../domain/raw-message.ts';
import { metrics } from '../metrics/metrics.ts';
import { createIngest, type Ingest } from '../pipeline/ingest.ts';
import { QueueUnavailableError } from '../queues/unavailable.ts';
import type { Services } from '../services.ts';

/** What one transport received at once: one MQTT publish, the records of one HTTP batch, or one polled page. */
export interface Arrival {
  manufacturer: string;
  transport: 'mqtt' | 'http' | 'poll';
  messages: { messageType: string; topic?: string; bytes: Buffer | string }[];
  /**
   * What the transport does when the queue refuses the arrival, for the log line ("closing the
   * connection without PUBACK", "answering 503"); `lost` when nothing can be withheld (an MQTT
   * QoS 0 publish), counted apart.
   */
  refused: { consequence: string; lost?: boolean };
}

/**
 * The one way raw data enters the service, whatever carried it: the size check (MQTT payloads
 * over MQTT_MAX_PAYLOAD_BYTES; an HTTP body was bounded by BODY_LIMIT_BYTES before), the raw
 * messages stamped with their reception time, the durable enqueue, the metrics.
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
 * 0 where each acknowledgement waits for the previous one, as on the external broker). An HTTP
 * batch and a polled page are queued at once.
 */
export function createAcceptor(
  services: Pick<Services, 'adapters' | 'config' | 'clock' | 'logger' | 'secrets' | 'redisUrl' | 'readiness'>,
  opts: { maxWaitMs?: number; ingest?: Ingest } = {},
): Acceptor {
  const { config, clock, logger } = services;
  const ingest = opts.ingest ?? createIngest(services, opts.maxWaitMs === undefined ? {} : { maxWaitMs: opts.maxWaitMs });
  return {
    async accept(arrival) {
      const { manufacturer, transport } = arrival;
      if (transport === 'mqtt') {
        const large = arrival.messages.find((m) => m.bytes.length > config.MQTT_MAX_PAYLOAD_BYTES);
        if (large) {
          metrics.ingestRejected.inc({ manufacturer, reason: 'too_large' });
          logger.warn({ manufacturer, bytes: large.bytes.length }, 'MQTT payload over MQTT_MAX_PAYLOAD_BYTES acknowledged and dropped');
          return 0;
        }
      }
      const receivedAt = clock.now().toISOString();
      const messages: RawMessage[] = arrival.messages.map((m) =>
        rawMessage({ manufacturer, messageType: m.messageType, receivedAt, ...(m.topic === undefined ? {} : { topic: m.topic }) }, m.bytes),
      );
      try {
        // An HTTP batch and a polled page are queued at once: their sender (or the poller) waits.
        if (transport !== 'mqtt') await ingest.enqueueNow(messages);
        else await Promise.all(messages.map((m) => ingest.enqueue(m)));
      } catch (err) {
        const reason = arrival.refused.lost ? 'queue_unavailable_qos0' : 'queue_unavailable';
        metrics.ingestRejected.inc({ manufacturer, reason }, messages.length);
        logger.warn({ manufacturer, err: (err as Error).message }, `queue refused ${describe(arrival)}; ${arrival.refused.consequence}`);
        throw err instanceof QueueUnavailableError ? err : new QueueUnavailableError('harmonize', err);
      }
      metrics.ingestMessages.inc({ manufacturer, transport }, messages.length);
      return messages.length;
    },
    close: () => ingest.close(),
  };
}

function describe(arrival: Arrival): string {
  if (arrival.transport === 'http') return 'an HTTP batch';
  if (arrival.transport === 'poll') return 'a polled page';
  return arrival.refused.lost ? 'an MQTT QoS 0 message' : 'an MQTT message';
}
