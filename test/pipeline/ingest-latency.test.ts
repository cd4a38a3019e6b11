import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { metrics } from '../../src/metrics/metrics.ts';
import { processBatch } from '../../src/pipeline/process-batch.ts';
import { batchServices } from './harness.ts';

const count = async () => (await metrics.ingestToStored.get()).values.find((v) => v.metricName === 'cvd_ingest_to_stored_seconds_count' && v.labels.manufacturer === 'virtual')?.value ?? 0;
const sum = async () => (await metrics.ingestToStored.get()).values.find((v) => v.metricName === 'cvd_ingest_to_stored_seconds_sum' && v.labels.manufacturer === 'virtual')?.value ?? 0;

/** The end-to-end latency the pipeline charts show: reception to stored, once per new message. */
describe('pipeline: latency from reception to stored', () => {
  const batch = batchServices();
  // A real telemetry message, sampled at 02:30:00 and received 5 s later.
  const body = () => readFileSync(join(batch.t.services.paths.adapters, 'virtual', 'fixtures', 'virtual.telemetry.combustion.json'), 'utf8');
  const message = (receivedAt: string) => rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt, topic: 'virtual/v1/V1RTUALV1N0000001/telemetry' }, body());

  it('is observed for a message whose points are new, by the injected clock, and not again for its redelivery', async () => {
    const { services } = batch.t;
    (services.clock as ManualClock).set('2026-11-25T02:30:06.500Z');
    const [n, s] = [await count(), await sum()];
    expect((await processBatch(services, batch.fanout, [message('2026-11-25T02:30:05.000Z')])).stored).toBeGreaterThan(0);
    expect(await count()).toBe(n + 1);
    expect((await sum()) - s).toBeCloseTo(1.5, 3);
    expect((await processBatch(services, batch.fanout, [message('2026-11-25T02:30:05.000Z')])).stored).toBe(0);
    expect(await count()).toBe(n + 1);
  });
});
