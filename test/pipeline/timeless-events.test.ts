import { describe, expect, it } from 'vitest';
import { batchServices } from './harness.ts';
import { processBatch } from '../../src/pipeline/process-batch.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';

const VIN = 'V1RTUALV1N0000S09';

/**
 * An event whose message carries no vehicle time (a manufacturer leaving out `occurredAt`) can
 * only be keyed by when the service received it. A re-sent publish (QoS 1 after a lost PUBACK)
 * or a replayed HTTP batch is the same message received later: it must not become a second
 * emergency call in history and a second webhook. The first reception's time is kept for the
 * same bytes (manufacturer, type, topic, body) and used again. Real mappings, SQLite, Redis.
 */
describe('pipeline: events without a vehicle time', () => {
  const batch = batchServices();

  const call = (receivedAt: string, n = 1) =>
    rawMessage(
      { manufacturer: 'virtual', messageType: 'event', receivedAt, topic: `virtual/v1/${VIN}/event` },
      JSON.stringify({ schema: 'virtual.event/1', messageId: `m-${n}`, vin: VIN, event: { type: 'MANUAL_EMERGENCY_CALL' } }),
    );
  const calls = async () => (await batch.t.services.store.dataPoints.history({ vin: VIN, item: 'accidentcallmanual', limit: 10 })).items;

  it('a re-sent message is stored once, at its first reception; another message is another call', async () => {
    await processBatch(batch.t.services, batch.fanout, [call('2026-11-25T11:00:00.000Z')]);
    await processBatch(batch.t.services, batch.fanout, [call('2026-11-25T11:00:07.000Z')]);
    const stored = await calls();
    expect(stored.map((p) => p.payload.receivedAt)).toEqual(['2026-11-25T11:00:00.000Z']);
    // A different message (its own id) is a call of its own.
    await processBatch(batch.t.services, batch.fanout, [call('2026-11-25T11:05:00.000Z', 2)]);
    expect((await calls()).map((p) => p.payload.receivedAt)).toEqual(['2026-11-25T11:05:00.000Z', '2026-11-25T11:00:00.000Z']);
  });
});
