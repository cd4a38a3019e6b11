import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { startRetention, type Retention } from '../../src/gdpr/retention.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { waitFor } from '../pipeline/harness.ts';

const VIN = 'V1RTUALV1N0000001';
const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T12:00:00.000Z');

function point(daysAgo: number): DataPoint {
  const at = new Date(NOW - daysAgo * DAY).toISOString();
  return { vin: VIN, item: 'mileage', timestampMs: NOW - daysAgo * DAY, payload: { value: 1000 - daysAgo, unit: 'km', timestamp: at }, manufacturer: 'virtual', mappingVersion: 'test', receivedAt: at };
}

/** Storage limitation: history older than HISTORY_RETENTION_DAYS is purged periodically, by the injected clock. */
describe('history retention purge', () => {
  let t: TestServices;
  let retention: Retention | undefined;
  afterEach(async () => {
    await retention?.close();
    retention = undefined;
    await t?.cleanup();
  });

  const history = async () => (await t.services.store.dataPoints.history({ vin: VIN, item: 'mileage', limit: 100 })).items.map((p) => Math.round((NOW - p.timestampMs) / DAY));

  it('purges at start and then every interval, by the clock it is given; the latest value stays', async () => {
    const clock = new ManualClock(NOW);
    t = await createTestServices({ clock, env: { HISTORY_RETENTION_DAYS: '30' } });
    await t.services.store.dataPoints.insertMany([point(40), point(31), point(29), point(1)]);
    // Quarantined raw messages hold personal data too: same retention, by their last failure.
    for (const [id, daysAgo] of [['old', 31], ['recent', 29]] as const) {
      const at = new Date(NOW - daysAgo * DAY).toISOString();
      await t.services.store.quarantine.put({
        id, manufacturer: 'virtual', messageType: 'telemetry', code: 'DECODE_FAILED', reason: 'x', mappingVersion: null, vin: VIN,
        topic: null, raw: VIN, rawEncoding: 'utf8', rawTruncated: false, receivedAt: at, quarantinedAt: at, lastFailedAt: at, failures: 1,
      });
    }

    retention = startRetention(t.services, { intervalMs: 50 });
    await waitFor(async () => (await history()).length === 2, 5_000, 'the purge at start');
    expect(await history()).toEqual([1, 29]);
    await waitFor(async () => (await t.services.store.quarantine.get(['old', 'recent'])).length === 1, 5_000, 'the old quarantine entry purged');
    expect((await t.services.store.quarantine.get(['old', 'recent'])).map((q) => q.id)).toEqual(['recent']);

    // Two days later by the service's clock, the 29-day-old point is past the limit.
    clock.advance(2 * DAY);
    await waitFor(async () => (await history()).length === 1, 5_000, 'the next periodic purge');
    expect(await history()).toEqual([1]);
    const latest = await t.services.store.dataPoints.latest([VIN], ['mileage']);
    expect(latest.map((p) => p.timestampMs)).toEqual([NOW - DAY]);
    // The log line follows the purge's other steps (quarantine, deliveries, consents).
    await waitFor(() => t.logs.some((l) => l.includes('history retention purge') && l.includes('"deleted":1')), 5_000, 'the purge logged');

    // Stopped: nothing is purged any more.
    await retention.close();
    await t.services.store.dataPoints.insertMany([point(90)]);
    await new Promise((r) => setTimeout(r, 200));
    expect(await history()).toEqual([1, 90]);
  });

  it('deletes push deliveries older than DELIVERY_LOG_RETENTION_DAYS, by the clock it is given', async () => {
    const clock = new ManualClock(NOW);
    t = await createTestServices({ clock, env: { DELIVERY_LOG_RETENTION_DAYS: '14' } });
    const { deliveries } = t.services.store;
    for (const [id, daysAgo] of [['15d', 15], ['13d', 13], ['1d', 1]] as const) {
      const at = new Date(NOW - daysAgo * DAY).toISOString();
      await deliveries.insertIfAbsent({
        transactionId: id, subscriptionId: 'sub-1', vin: VIN, item: 'mileage', kind: 'update', timestampMs: NOW - daysAgo * DAY,
        payload: { value: 1, unit: 'km', timestamp: at }, status: 'DELIVERED', attempts: [], lastError: null, nextAttemptAt: null, createdAt: at, updatedAt: at,
      });
    }
    const left = async () => (await deliveries.list({ subscriptionId: 'sub-1', limit: 100 })).map((d) => d.transactionId);
    retention = startRetention(t.services, { intervalMs: 50 });
    await waitFor(async () => (await left()).length === 2, 5_000, 'the purge at start');
    expect(await left()).toEqual(['1d', '13d']);
    expect(t.logs.some((l) => l.includes('history retention purge') && l.includes('"deliveries":1'))).toBe(true);
    clock.advance(2 * DAY);
    await waitFor(async () => (await left()).length === 1, 5_000, 'the next periodic purge');
    expect(await left()).toEqual(['1d']);
  });

  it('uses HISTORY_PURGE_INTERVAL_S and answers runOnce with the count it purged', async () => {
    const clock = new ManualClock(NOW);
    t = await createTestServices({ clock, env: { HISTORY_RETENTION_DAYS: '7', HISTORY_PURGE_INTERVAL_S: '1' } });
    retention = startRetention(t.services);
    await waitFor(() => t.logs.some((l) => l.includes('history retention purge')), 5_000, 'the purge at start');
    await t.services.store.dataPoints.insertMany([point(10), point(8), point(2)]);
    await waitFor(async () => (await history()).length === 1, 5_000, 'the purge one second later');
    // That purge goes on with the other categories; a runOnce before its end would share its count.
    await waitFor(() => t.logs.some((l) => l.includes('history retention purge') && l.includes('"deleted":2')), 5_000, 'the end of that purge');
    await t.services.store.dataPoints.insertMany([point(9)]);
    expect(await retention.runOnce()).toBe(1);
    expect(await retention.runOnce()).toBe(0);
  });

  it('a failing purge is logged and does not stop the process', async () => {
    t = await createTestServices({ clock: new ManualClock(NOW) });
    await t.services.store.close();
    retention = startRetention(t.services, { intervalMs: 20 });
    await waitFor(() => t.logs.filter((l) => l.includes('history retention purge failed')).length >= 2, 5_000, 'two failed purges');
    await expect(retention.runOnce()).rejects.toThrow();
  });
});
