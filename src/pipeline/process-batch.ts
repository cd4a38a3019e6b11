import type { Adapter } from '../adapters/manifest.ts';
import { metrics, timed } from '../metrics/metrics.ts';
import type { PushFanoutEnqueuer } from './fanout-contract.ts';
import type { PipelineContext } from './context.ts';
import type { DataPoint, QuarantinedMessage } from '../store/contract.ts';
import { capRaw } from '../store/contract/quarantine.ts';
import { firstReception } from './first-reception.ts';
import { analyse, toDataPoints, type Analysis } from './harmonize.ts';
import { quarantineIdOf, type RawMessage } from '../domain/raw-message.ts';

/** Messages harmonized between two turns of the event loop. */
const YIELD_EVERY = 20;

export interface BatchOutcome {
  /** Points stored by this run (not counting those a redelivery found already stored). */
  stored: number;
  /** Points of the batch's good messages (all handed to push fan-out but those of `push: false` types). */
  points: number;
  quarantined: number;
}

/**
 * Harmonizes one batch: every message is analysed on its own, so one bad message is
 * quarantined and never takes its batch with it. Then, in this order: all good points in one
 * store write, the quarantine entries, the push hand-over (but of `push: false` message types),
 * and the removal of reprocessed messages from quarantine. Any of these failing throws (an outage): the whole batch is retried,
 * and because every step is idempotent a retry changes nothing that already happened.
 */
export async function processBatch(
  services: Pick<PipelineContext, 'adapters' | 'catalog' | 'clock' | 'config' | 'logger' | 'redis' | 'secrets' | 'store'>,
  fanout: PushFanoutEnqueuer,
  messages: RawMessage[],
  opts: { rerun?: boolean } = {},
): Promise<BatchOutcome> {
  const { store, adapters, catalog, logger } = services;
  // analyse never throws for what a message holds; should it all the same, the message fails
  // alone rather than taking the acknowledged messages of its whole batch with it.
  const analyseAlone = async (adapter: Adapter, msg: RawMessage): Promise<Analysis> => {
    try {
      return await analyse(adapter, catalog, msg, { maxFutureMs: services.config.INGEST_MAX_FUTURE_S * 1000 });
    } catch (err) {
      return { mappingVersion: null, vin: null, candidates: [], failure: { code: 'MAPPING_FAILED', reason: `harmonizing failed: ${(err as Error).message}` } };
    }
  };
  const points: DataPoint[] = [];
  const toPush: DataPoint[] = [];
  const failures: QuarantinedMessage[] = [];
  const recovered: string[] = [];
  /** Each new message's reception and its points, for its end-to-end latency once stored. */
  const arrivals: { manufacturer: string; receivedAt: string; points: DataPoint[] }[] = [];
  for (const [i, received] of messages.entries()) {
    let msg = received;
    // Mapping is CPU-bound: give the event loop a turn now and then, so lock renewals, probes
    // and the shutdown timer run while a large batch is harmonized.
    if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    const adapter = adapters.get(msg.manufacturer);
    let analysis: Analysis = adapter
      ? await analyseAlone(adapter, msg)
      : { mappingVersion: null, vin: null, candidates: [], failure: { code: 'UNKNOWN_MESSAGE_TYPE', reason: `no adapter "${msg.manufacturer}" in this deployment` } };
    // Items without a vehicle time are keyed by reception: a message received again is mapped
    // again with its first reception's time (src/pipeline/first-reception.ts).
    if (adapter && (!analysis.failure || analysis.storesValid) && analysis.candidates.some((c) => c.payload.timestamp === undefined)) {
      const first = await firstReception(services, msg);
      if (first !== msg.receivedAt) analysis = await analyseAlone(adapter, (msg = { ...msg, receivedAt: first }));
    }
    if (adapter && (!analysis.failure || analysis.storesValid)) {
      // Every item, or (manifest invalidItems: quarantine-items) the valid ones of a message
      // whose other items go to quarantine below.
      const mapped = toDataPoints(adapter, analysis, msg);
      points.push(...mapped);
      // A message type that reports the past (manifest `push: false`) is stored, not news.
      if (adapter.manifest.messageTypes[msg.messageType]?.push !== false) toPush.push(...mapped);
      if (!msg.reprocess) arrivals.push({ manufacturer: msg.manufacturer, receivedAt: received.receivedAt, points: mapped });
      if (!analysis.failure) {
        if (msg.reprocess) recovered.push(msg.reprocess.quarantineId);
        continue;
      }
    }
    const entry = toQuarantine(msg, analysis, services.config.QUARANTINE_MAX_RAW_BYTES);
    failures.push(entry);
    metrics.mappingFailures.inc({ manufacturer: msg.manufacturer, reason: entry.code });
    // The reason can quote the message; it stays at debug level, the VIN only as a pseudonym.
    logger.warn(
      { manufacturer: msg.manufacturer, messageType: msg.messageType, quarantineCode: entry.code, vin: entry.vin ? services.secrets.pseudonym(entry.vin) : undefined },
      'raw message quarantined',
    );
    logger.debug({ quarantineId: entry.id, reason: entry.reason }, 'quarantine reason');
  }

  const fresh = points.length > 0 ? await timed(metrics.storeLatency, 'insert_data_points', () => store.dataPoints.insertMany(points)) : [];
  for (const f of failures) await store.quarantine.put(f);
  if (toPush.length > 0) await fanout.enqueue(toPush, opts);
  if (recovered.length > 0) await store.quarantine.remove(recovered);

  const storedPer = new Map<string, number>();
  for (const p of fresh) storedPer.set(p.manufacturer, (storedPer.get(p.manufacturer) ?? 0) + 1);
  for (const [manufacturer, n] of storedPer) metrics.dataPointsStored.inc({ manufacturer }, n);
  // Reception to stored, for the messages whose points are new (a redelivered batch's are not).
  const storedNow = services.clock.now().getTime();
  // insertMany returns the very objects it was given (the store contract): no keys to build.
  const stored = new Set(fresh);
  for (const a of arrivals) {
    if (a.points.some((p) => stored.has(p))) metrics.ingestToStored.observe({ manufacturer: a.manufacturer }, Math.max(0, storedNow - Date.parse(a.receivedAt)) / 1000);
  }
  return { stored: fresh.length, points: points.length, quarantined: failures.length };
}

/**
 * A failure's times are the message's own (received, or reprocess requested), never "now": a
 * redelivered batch then reports the very same failure, and the quarantine counts it once.
 */
function toQuarantine(msg: RawMessage, analysis: Analysis, maxRawBytes: number): QuarantinedMessage {
  const failedAt = msg.reprocess?.at ?? msg.receivedAt;
  // The id is the whole message's: a redelivery of it is the same entry, cut or not.
  const { raw, rawTruncated } = capRaw(msg.body, msg.encoding, maxRawBytes);
  return {
    id: msg.reprocess?.quarantineId ?? quarantineIdOf(msg),
    manufacturer: msg.manufacturer,
    messageType: msg.messageType,
    code: analysis.failure?.code ?? 'MAPPING_FAILED',
    reason: analysis.failure?.reason ?? 'unknown',
    mappingVersion: analysis.mappingVersion,
    vin: analysis.vin,
    topic: msg.topic ?? null,
    raw,
    rawEncoding: msg.encoding,
    rawTruncated,
    receivedAt: msg.receivedAt,
    quarantinedAt: failedAt,
    lastFailedAt: failedAt,
    failures: 1,
    ...(analysis.storesValid ? { failedItems: [...new Set(analysis.candidates.filter((c) => c.errors.length > 0).map((c) => c.item))] } : {}),
  };
}
