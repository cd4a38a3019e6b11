import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook, type VehicleDataPush } from '../../clients/typescript/src/index.ts';
import { ManualClock } from '../../src/clock.ts';
import { freePort } from '../helpers/free-port.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { startReceiver, type Receiver } from './helpers.ts';

/*
 * POST /push/v1/webhook/test: one signed sample envelope at once to the
 * registered URL, and the receiver's answer (status, time, body excerpt) in ours.
 */
describe('POST /push/v1/webhook/test', () => {
  let t: TestApp;
  let c: TestConsumer;
  let clock: ManualClock;
  let receiver: Receiver;
  beforeEach(async () => {
    clock = new ManualClock('2026-06-01T12:00:00.000Z');
    t = await createTestApp({ clock, env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true', PUSH_TIMEOUT_MS: '1500' } });
    c = await addConsumer(t);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await t.cleanup();
  });

  const register = async (url = receiver.url, extra: Record<string, unknown> = {}) => {
    const res = await t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: c.headers, payload: { url, ...extra } });
    expect(res.statusCode).toBe(200);
    return res.json().signingSecret as string;
  };
  const sendTest = (headers = c.headers) => t.app.inject({ method: 'POST', url: '/push/v1/webhook/test', headers });

  it('posts a signed sample envelope to the receiver at once and answers with its status, time and body', async () => {
    const secret = await register(receiver.url, { authorization: 'Bearer receiver-token' });
    receiver.respond = () => ({ status: 202, headers: { 'content-type': 'application/json' }, body: '{"accepted":true}' });
    const res = await sendTest();
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect(answer).toMatchObject({ status: 202, error: null, bodyExcerpt: '{"accepted":true}' });
    expect(answer.durationMs).toBeGreaterThanOrEqual(0);
    expect(answer.durationMs).toBeLessThan(10_000);

    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req!.headers.authorization).toBe('Bearer receiver-token');
    expect(req!.headers['webhook-id']).toBe(answer.webhookId);
    // Verified with the typed client's helper, as a consumer would.
    const push = await verifyWebhook<VehicleDataPush & { test?: boolean }>(secret, req!.headers, req!.body, { now: clock.now() });
    expect(push.test).toBe(true);
    expect(push.transactionId).toBe(answer.webhookId);
    expect(push.subscriptionId).toBe(c.subscriptionId);
    const [entry] = push.inVehicleResponse.inVehicleData;
    expect(entry!.identifier).toEqual({ type: 'VIN', value: 'TEST0000000000000' });
    const dataPoint = entry!.response.accidentautomatic!.dataPoint;
    expect(t.services.catalog.validate('accidentautomatic', dataPoint)).toEqual({ valid: true });

    // Nothing recorded: no delivery, the webhook untouched.
    expect((await t.app.inject({ method: 'GET', url: '/push/v1/deliveries', headers: c.headers })).json()).toEqual([]);
  });

  it('reports a failing receiver in a 200: its error status with the first KB of its text, or why no answer came', async () => {
    await register();
    receiver.respond = () => ({ status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `boom\u0007 ${'é'.repeat(3000)}` });
    const failed = (await sendTest()).json();
    expect(failed).toMatchObject({ status: 500, error: 'HTTP 500' });
    // 1024 bytes at most, cut at a character boundary, the bell character removed.
    expect(Buffer.byteLength(failed.bodyExcerpt)).toBeLessThanOrEqual(1024);
    expect(Buffer.byteLength(failed.bodyExcerpt)).toBeGreaterThan(1000);
    expect(failed.bodyExcerpt).toMatch(/^boom é+$/);

    // Bidirectional controls would let the receiver's text reorder what is shown around it
    // (U+202E makes "gnp.exe" read "exe.png"): removed, each of U+202A–U+202E and U+2066–U+2069.
    receiver.respond = () => ({ status: 400, headers: { 'content-type': 'text/plain' }, body: 'ok \u202Egnp.exe\u202C \u202A\u202B\u202D\u2066\u2067\u2068\u2069 end' });
    expect((await sendTest()).json()).toMatchObject({ status: 400, bodyExcerpt: 'ok gnp.exe  end' });

    receiver.respond = () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: '\u0089PNG' });
    expect((await sendTest()).json()).toMatchObject({ status: 200, error: null, bodyExcerpt: '(a image/png body, not shown)' });

    receiver.respond = () => 'hang';
    expect((await sendTest()).json()).toMatchObject({ status: null, error: 'timeout after 1500 ms', bodyExcerpt: null });

    await register(`http://127.0.0.1:${await freePort()}/gone`);
    expect((await sendTest()).json()).toMatchObject({ status: null, error: 'connection refused', bodyExcerpt: null });
  });

  it('answers 404 without a webhook', async () => {
    const res = await sendTest();
    expect(res.statusCode).toBe(404);
    expect(res.json().reasonText).toBe('No webhook configured for this subscription.');
    expect(receiver.requests).toHaveLength(0);
  });

  it('sends at most five per minute per subscription, then 429 with Retry-After until the minute ends', async () => {
    await register();
    for (let i = 0; i < 5; i++) expect((await sendTest()).statusCode).toBe(200);
    const limited = await sendTest();
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(receiver.requests).toHaveLength(5);
    // Another subscription is not affected.
    const other = await addConsumer(t);
    await t.app.inject({ method: 'PUT', url: '/push/v1/webhook', headers: other.headers, payload: { url: receiver.url } });
    expect((await sendTest(other.headers)).statusCode).toBe(200);
    clock.advance(60_000);
    expect((await sendTest()).statusCode).toBe(200);
    expect(receiver.requests).toHaveLength(7);
  });
});
