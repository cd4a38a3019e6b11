import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedBroker } from '../../src/transports/mqtt/embedded-broker.ts';
import { systemClock } from '../../src/clock.ts';
import { startActivationWorkers } from '../../src/management/start.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import { startPushWorkers } from '../../src/push/start.ts';
import type { Running } from '../../src/running.ts';
import { Browser, consumerWith, REDIRECT, runFlow, startLiveApp, type LiveApp } from '../consent/harness.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../push/helpers.ts';
import { consumerCall, waitFor } from './live-calls.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/*
 * The whole push path over real sockets and real parts: consumers activate V1RTUALV1N0000S08
 * over HTTP (the virtual manufacturer confirms), a user gives consent through the portal and the
 * virtual manufacturer's authorization server, webhooks are registered with PUT; then the
 * simulator (clock scaled ×10, starting 30 simulated seconds before a quarter hour) publishes
 * S08's light crash over MQTT, the pipeline harmonizes it into an accidentautomatic point, the
 * fan-out queues it and the push worker posts it to a local receiver.
 */
const S08 = 'V1RTUALV1N0000S08';
const ITEMS = ['accidentautomatic', 'crashseverity'];

describe('end to end: simulator crash → MQTT → pipeline → push → signed webhook', () => {
  let t: LiveApp;
  const running: Running[] = [];
  const receivers: Record<'consented' | 'unconsented' | 'deactivated', Receiver> = {} as never;
  const consumers: Record<keyof typeof receivers, TestConsumer> = {} as never;
  const secrets: Partial<Record<keyof typeof receivers, string>> = {};

  const api = (c: TestConsumer, method: string, path: string, body?: unknown) =>
    consumerCall<Record<string, unknown> & { status?: string }>(t, c, method, path, body);

  beforeAll(async () => {
    t = await startLiveApp({
      // Real time: webhook-timestamp must verify against the receiver's clock.
      clock: systemClock,
      env: {
        PUSH_ALLOW_PRIVATE_TARGETS: 'true',
        PUSH_WATCH_CACHE_MS: '0',
        VIRTUAL_ACTIVATION_DELAY_MS: '200',
        // Simulated time starts 30 s before 02:45, S08's crash; ×10 makes that 3 s of wall time.
        SIM_CLOCK: 'scaled:10@2026-11-25T02:44:30Z',
        SIM_TICK_MS: '100',
        SIM_MAX_CATCHUP_MINUTES: '2',
        PIPELINE_BATCH_MAX_WAIT_MS: '2',
        MQTT_PORT: '0',
      },
    });
    const broker = await startEmbeddedBroker(t.services, { port: 0 });
    running.push(broker);
    running.push(startHarmonizeWorker(pipelineContext(t.services), {}));
    running.push(...(await startActivationWorkers(t.services)));
    running.push(...(await startPushWorkers(t.services)));

    for (const name of ['consented', 'unconsented', 'deactivated'] as const) {
      receivers[name] = await startReceiver();
      consumers[name] = await consumerWith(t, { dataItems: ITEMS, allowedRedirectUrls: [REDIRECT] });
      const put = await api(consumers[name], 'PUT', '/push/v1/webhook', { url: receivers[name].url, authorization: `Bearer ${name}` });
      expect(put.status).toBe(200);
      secrets[name] = put.body.signingSecret as string;
      expect((await api(consumers[name], 'PUT', '/management/v1/vehicles', { action: 'activate', vins: [S08] })).status).toBe(202);
    }
    for (const name of ['consented', 'unconsented', 'deactivated'] as const) {
      await waitFor(async () => (await api(consumers[name], 'GET', `/management/v1/vehicles/${S08}`)).body.status === 'ACTIVATED', `${name} activated`);
    }
    for (const name of ['consented', 'deactivated'] as const) {
      const flow = await runFlow(t, consumers[name], new Browser(), { params: { vin: S08 } });
      expect(flow.callback.status).toBe(303);
    }
    expect((await api(consumers.deactivated, 'PUT', '/management/v1/vehicles', { action: 'deactivate', vins: [S08] })).status).toBe(202);
    await waitFor(async () => (await api(consumers.deactivated, 'GET', `/management/v1/vehicles/${S08}`)).body.status === 'DEACTIVATED', 'deactivated');

    running.push(...(await t.wing!.simulatorRole!(t.services, broker.url)));
  }, 60_000);

  afterAll(async () => {
    for (const r of [...running].reverse()) await r.close();
    for (const r of Object.values(receivers)) await r?.close();
    await t?.cleanup();
  });

  it('S08’s crash reaches the consented subscription’s receiver as a signed envelope as it is ingested', async () => {
    const receiver = receivers.consented;
    const [req] = await receiver.waitFor(1, 30_000);
    const payload = new Webhook(secrets.consented!).verify(req!.body, req!.headers as Record<string, string>) as {
      transactionId: string;
      subscriptionId: string;
      inVehicleResponse: { version: string; inVehicleData: { identifier: { type: string; value: string }; response: Record<string, { dataPoint: Record<string, unknown> }> }[] };
    };
    expect(req!.headers.authorization).toBe('Bearer consented');
    expect(req!.headers['webhook-id']).toBe(payload.transactionId);
    expect(payload.subscriptionId).toBe(consumers.consented.subscriptionId);
    const [entry] = payload.inVehicleResponse.inVehicleData;
    expect(entry!.identifier).toEqual({ type: 'VIN', value: S08 });
    const dataPoint = entry!.response.accidentautomatic!.dataPoint;
    expect(t.services.catalog.validate('accidentautomatic', dataPoint)).toEqual({ valid: true });
    // The crash happened at 02:45:00 simulated time; receivedAt is when the service got the call.
    expect(String(dataPoint.timestamp)).toMatch(/^2026-11-25T02:45:00/);

    // Pushed as it is ingested (the stored point's provenance time), not by a later sweep; how
    // fast, within a second on an idle machine, is bench:push's to measure.
    const [stored] = await t.services.store.dataPoints.latest([S08], ['accidentautomatic']);
    expect(stored).toBeDefined();
    const latencyMs = req!.at - Date.parse(stored!.receivedAt);
    expect(latencyMs).toBeGreaterThanOrEqual(0);
    expect(latencyMs).toBeLessThan(10_000);
  });

  it('the unconsented and the deactivated subscription get no push, and no delivery is recorded for them', async () => {
    await receivers.consented.waitFor(1, 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(receivers.unconsented.requests).toHaveLength(0);
    expect(receivers.deactivated.requests).toHaveLength(0);
    for (const name of ['unconsented', 'deactivated'] as const) {
      expect((await api(consumers[name], 'GET', '/push/v1/deliveries')).body).toEqual([]);
    }
    const listed = (await api(consumers.consented, 'GET', '/push/v1/deliveries?status=DELIVERED')).body as unknown as { item: string }[];
    expect(listed.map((d) => d.item)).toContain('accidentautomatic');
  });
});
