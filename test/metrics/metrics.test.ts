import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/transports/http/signature.ts';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import type { Running } from '../../src/running.ts';
import { addConsumer, createTestApp, type TestApp } from '../helpers/app.ts';
import { fixture, waitFor } from '../pipeline/harness.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/** The value of one sample line of the exposition text, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return 0;
}

describe('/metrics after real traffic', () => {
  let t: TestApp;
  let worker: Running;
  beforeAll(async () => {
    t = await createTestApp();
    worker = startHarmonizeWorker(pipelineContext(t.services));
  });
  afterAll(async () => {
    await worker.close();
    await t.cleanup();
  });

  const scrape = async () => {
    const res = await t.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    return res.body;
  };

  it('counts ingest, stored points, quarantine, deliveries and queue depths', async () => {
    const before = await scrape();
    const secret = adapterSecret(t.services.config, t.services.adapters.get('borealis')!);
    const body = JSON.stringify({
      batchId: 'm-1',
      records: [JSON.parse(fixture('borealis', 'borealis.vehicle-status.json')) as unknown, { recordType: 'vehicle-status', garbage: true }],
    });
    const at = Math.floor(t.services.clock.now().getTime() / 1000);
    const res = await t.app.inject({
      method: 'POST',
      url: '/ingest/v1/borealis',
      headers: { 'content-type': 'application/json', 'x-borealis-signature': signBody(secret, at, body) },
      payload: body,
    });
    expect(res.statusCode).toBe(202);
    await waitFor(async () => (await t.services.store.quarantine.count()) === 1 && (await t.services.store.dataPoints.count()) > 0, 10_000, 'batch processed');

    const consumer = await addConsumer(t);
    const delivery = await t.app.inject({
      method: 'POST',
      url: '/delivery/v1/in-vehicle',
      headers: consumer.headers,
      payload: { version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: 'BRLAU1EV0N1000001' } }], dataItems: ['mileage'] },
    });
    expect(delivery.statusCode).toBe(200);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('cvd_ingest_messages_total', { manufacturer: 'borealis', transport: 'http' })).toBe(2);
    expect(delta('cvd_data_points_stored_total', { manufacturer: 'borealis' })).toBeGreaterThan(0);
    expect(delta('cvd_mapping_failures_total', { manufacturer: 'borealis' })).toBe(1);
    expect(sample(after, 'cvd_quarantine_messages')).toBe(1);
    expect(delta('cvd_store_operation_seconds_count', { operation: 'insert_data_points' })).toBeGreaterThan(0);
    expect(delta('cvd_delivery_requests_total', { outcome: 'ok' })).toBe(1);
    expect(delta('cvd_delivery_vehicle_results_total', { result: 'CAR.VE.903' })).toBe(1);
    expect(after).toMatch(/cvd_queue_jobs\{queue="harmonize",state="completed"\} \d+/);
    expect(after).toContain('cvd_process_resident_memory_bytes');
    // No personal data in labels.
    expect(after).not.toContain('BRLAU1EV0N1000001');
  });
});
