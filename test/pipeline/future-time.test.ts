import { describe, expect, it } from 'vitest';
import { processBatch } from '../../src/pipeline/process-batch.ts';
import { batchServices } from './harness.ts';
import { rawFixtures, toRawMessage, withVin } from './data-minimisation-inject.ts';

const VIN = 'V1RTUALV1N0000003';

/**
 * The latest value only moves forward in time, so one reading stamped far in the future (a
 * vehicle clock set to 2099) would be delivered as the latest for ever, every correct reading
 * after it stored in history only. A message whose data is stamped more than
 * INGEST_MAX_FUTURE_S after it was received is quarantined (TIME_IN_FUTURE) instead. Real
 * mappings, catalog, SQLite store and Redis.
 */
describe('pipeline: data stamped in the future', () => {
  const batch = batchServices({ INGEST_MAX_FUTURE_S: '300' });

  const f = rawFixtures().find((x) => x.name === 'virtual.telemetry.combustion.json')!;
  const at = (sampledAt: string) => ({ ...withVin(f, VIN), sampledAt });

  it('quarantines a reading from 2099 and keeps the latest value where the correct readings put it', async () => {
    const receivedAt = '2026-11-25T10:20:00.000Z';
    const future = await processBatch(batch.t.services, batch.fanout, [toRawMessage(f, at('2099-01-01T00:00:00Z'), receivedAt)]);
    expect(future).toMatchObject({ quarantined: 1, stored: 0 });
    const [entry] = (await batch.t.services.store.quarantine.list({}, 10)).items;
    expect(entry).toMatchObject({ code: 'TIME_IN_FUTURE', vin: VIN });
    expect(entry!.reason).toMatch(/2099-01-01T00:00:00.000Z is more than 300 s after the message was received/);

    // A clock a little ahead (within the allowance) is fine; so is the next correct reading.
    const ahead = await processBatch(batch.t.services, batch.fanout, [toRawMessage(f, at('2026-11-25T10:24:00Z'), receivedAt)]);
    expect(ahead.quarantined).toBe(0);
    await processBatch(batch.t.services, batch.fanout, [toRawMessage(f, at('2026-11-25T10:30:00Z'), '2026-11-25T10:30:01.000Z')]);
    const [latest] = await batch.t.services.store.dataPoints.latest([VIN], ['mileage']);
    expect(latest?.payload.timestamp).toBe('2026-11-25T10:30:00.000Z');
  });
});
