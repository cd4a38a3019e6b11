import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { DataPoint } from '../../src/store/contract.ts';
import { createFanout } from '../../src/push/fanout/fanout.ts';
import { createPushQueue } from '../../src/push/queue.ts';
import { startPushHarness, type PushHarness } from './harness.ts';
import { crashPoint, S08 } from './helpers.ts';

let h: PushHarness;
afterEach(async () => h?.stop());

const T0 = Date.parse('2026-06-01T12:00:00Z');

function severity(offsetSeconds: number, value = 1): DataPoint {
  const at = new Date(T0 + offsetSeconds * 1000).toISOString();
  return { vin: S08, item: 'crashseverity', timestampMs: T0 + offsetSeconds * 1000, payload: { value, timestamp: at }, manufacturer: 'virtual', mappingVersion: 'test', receivedAt: at };
}

function voltage(offsetSeconds: number): DataPoint {
  const at = new Date(T0 + offsetSeconds * 1000).toISOString();
  return { vin: S08, item: 'batteryvoltage', timestampMs: T0 + offsetSeconds * 1000, payload: { value: 12.4, unit: 'V', timestamp: at }, manufacturer: 'virtual', mappingVersion: 'test', receivedAt: at };
}

const settle = () => new Promise((r) => setTimeout(r, 600));

describe('update pushes of watched pull items', () => {
  it('pushes a watched pull item at most once per minimum interval of data time; unwatched items never', async () => {
    h = await startPushHarness({ webhook: { items: ['crashseverity'], minIntervalSeconds: 60 } });
    await h.fanout.enqueue([severity(0), voltage(0)]);
    await h.fanout.enqueue([severity(30)]);
    await h.fanout.enqueue([severity(61, 2)]);
    await h.receiver.waitFor(2);
    await settle();
    expect(h.receiver.requests).toHaveLength(2);
    const bodies = h.receiver.requests.map((r) => {
      expect(new Webhook(h.secret).verify(r.body, r.headers as Record<string, string>)).toBeTruthy();
      return JSON.parse(r.body).inVehicleResponse.inVehicleData[0].response;
    });
    expect(bodies).toEqual(
      expect.arrayContaining([
        { crashseverity: { dataPoint: severity(0).payload } },
        { crashseverity: { dataPoint: severity(61, 2).payload } },
      ]),
    );
    const rows = await h.t.services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, limit: 10 });
    expect(rows.map((r) => r.kind)).toEqual(['update', 'update']);
  });

  it('a retried batch brings no second update push (the throttle admits the same point again, the row dedups it)', async () => {
    h = await startPushHarness({ webhook: { items: ['crashseverity'], minIntervalSeconds: 60 } });
    const batch = [severity(0), crashPoint(S08, new Date(T0))];
    await h.fanout.enqueue(batch);
    await h.receiver.waitFor(2);
    await h.fanout.enqueue(batch);
    await settle();
    expect(h.receiver.requests).toHaveLength(2);
  });

  it('a rerun batch whose first hand-over was interrupted drops its late update row instead of leaving it PENDING for ever', async () => {
    h = await startPushHarness({ webhook: { items: ['crashseverity'], minIntervalSeconds: 60 } });
    const { services } = h.t;
    // The first hand-over of the point at 0 s: its row is written, then queuing its job fails
    // (this producer's connection is gone), so the pipeline will run the batch again.
    const broken = createPushQueue(services);
    await broken.close();
    await expect(createFanout(services, broken).enqueue([severity(0)])).rejects.toThrow();
    const late = (await services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, limit: 10 }))[0]!;
    expect(late).toMatchObject({ status: 'PENDING', timestampMs: T0 });
    // Meanwhile a newer point is admitted and pushed; then the first batch runs again.
    await h.fanout.enqueue([severity(61, 2)]);
    await h.receiver.waitFor(1);
    await h.fanout.enqueue([severity(0)], { rerun: true });
    expect(await services.store.deliveries.get(late.transactionId)).toMatchObject({ status: 'DROPPED', lastError: 'superseded by a newer update' });
    await settle();
    expect(h.receiver.requests).toHaveLength(1);
  });

  it('an update queued before its item was taken off the webhook is dropped, not sent', async () => {
    h = await startPushHarness({ workers: false, webhook: { items: ['crashseverity'], minIntervalSeconds: 60 } });
    await h.fanout.enqueue([severity(0)]);
    const [queued] = await h.t.services.store.deliveries.list({ subscriptionId: h.consumer.subscriptionId, limit: 10 });
    expect(queued).toMatchObject({ kind: 'update', status: 'PENDING' });
    // The consumer no longer wants crashseverity updates (events only), then the worker runs.
    const res = await h.t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: h.consumer.headers, payload: { url: h.receiver.url, items: [] } });
    expect(res.statusCode).toBe(200);
    await h.startWorkers();
    await expect.poll(async () => (await h.t.services.store.deliveries.get(queued!.transactionId))?.status).toBe('DROPPED');
    expect(await h.t.services.store.deliveries.get(queued!.transactionId)).toMatchObject({ lastError: 'item no longer in the webhook\'s update items', attempts: [] });
    expect(h.receiver.requests).toHaveLength(0);
  });

  it('a webhook without items gets events only', async () => {
    h = await startPushHarness();
    await h.fanout.enqueue([severity(0), voltage(0), crashPoint(S08, new Date(T0))]);
    await h.receiver.waitFor(1);
    await settle();
    expect(h.receiver.requests).toHaveLength(1);
    expect(JSON.parse(h.receiver.requests[0]!.body).inVehicleResponse.inVehicleData[0].response).toHaveProperty('accidentautomatic');
  });

  it('stops update pushes for an unconsented vehicle too', async () => {
    h = await startPushHarness({ seed: false, webhook: { items: ['crashseverity'] } });
    const { seedVehicle } = await import('./helpers.ts');
    await seedVehicle(h.t.services, h.consumer.subscriptionId, S08);
    await h.fanout.enqueue([severity(0)]);
    await settle();
    expect(h.receiver.requests).toHaveLength(0);
  });
});
