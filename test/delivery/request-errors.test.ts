import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { deliveryBody, VIN1 } from './fixtures.ts';

/** Every whole-request error of api-contract section 1 on POST /delivery/v1/in-vehicle, exact bodies. */
describe('delivery whole-request errors', () => {
  let t: TestApp;
  let c: TestConsumer;
  let other: TestConsumer;
  const url = '/delivery/v1/in-vehicle';

  beforeAll(async () => {
    t = await createTestApp();
    c = await addConsumer(t, { dataItems: ['batteryvoltage', 'coolanttemperature', 'accidentautomatic'] });
    other = await addConsumer(t);
  });
  afterAll(() => t.cleanup());

  async function post(body: unknown, headers: Record<string, string> = c.headers) {
    const res = await t.app.inject({ method: 'POST', url, headers, payload: body as object });
    return { status: res.statusCode, type: String(res.headers['content-type']), body: res.json() };
  }

  const expectError = (
    r: { status: number; type: string | undefined; body: unknown },
    status: number,
    reasonText: string,
  ) => {
    expect(r.status).toBe(status);
    expect(r.type).toBe('application/json;charset=UTF-8');
    expect(r.body).toEqual({ reasonCode: `CAR.${status}`, reasonText, url, method: 'POST' });
  };

  const ok = deliveryBody([VIN1], ['batteryvoltage']);

  it('missing x-api-key', async () => {
    expectError(await post(ok, { 'x-subscription-id': c.subscriptionId }), 400, 'Bad request, mandatory header parameter X-Api-Key is missing.');
  });

  it('missing X-Subscription-Id', async () => {
    expectError(await post(ok, { 'x-api-key': c.apiKey }), 400, 'Bad request, mandatory header parameter X-Subscription-Id is missing.');
  });

  it('invalid API key', async () => {
    expectError(await post(ok, { ...c.headers, 'x-api-key': 'cvd_live_nope' }), 401, 'Unauthorized request, invalid API key.');
  });

  it('unknown subscription and another consumer’s subscription answer the same', async () => {
    const unknown = await post(ok, { ...c.headers, 'x-subscription-id': randomUUID() });
    const foreign = await post(ok, { ...c.headers, 'x-subscription-id': other.subscriptionId });
    expectError(unknown, 400, 'Bad request, subscription not found.');
    expectError(foreign, 400, 'Bad request, subscription not found.');
  });

  it('unsupported version', async () => {
    expectError(await post({ ...ok, version: '2.0' }), 400, 'Bad request, unsupported api version 2.0.');
  });

  it('empty or missing vehicle list', async () => {
    expectError(await post({ ...ok, vehicles: [] }), 400, 'Bad request, please provide a non empty list of Vehicles.');
    expectError(await post({ version: '1.0', dataItems: ['batteryvoltage'] }), 400, 'Bad request, please provide a non empty list of Vehicles.');
  });

  it('empty or missing item list', async () => {
    expectError(await post({ ...ok, dataItems: [] }), 400, 'Bad request, please provide a non empty list of DataItems.');
    expectError(await post({ version: '1.0', vehicles: ok.vehicles }), 400, 'Bad request, please provide a non empty list of DataItems.');
  });

  it('more than 10 vehicles', async () => {
    const vins = Array.from({ length: 11 }, (_, i) => `V1RTUALV1N00000${String(i).padStart(2, '0')}`);
    expectError(await post(deliveryBody(vins, ['batteryvoltage'])), 400, 'Bad request, maximum number of vehicles 10 exceeded.');
    // Exactly 10 is fine.
    expect((await post(deliveryBody(vins.slice(0, 10), ['batteryvoltage']))).status).toBe(200);
  });

  it('items outside the subscription and unknown names, all in one message, in request order', async () => {
    const r = await post(deliveryBody([VIN1], ['batteryvoltage', 'sochighlevel', 'nosuchitem', 'coolanttemperature', 'sochighlevel']));
    expectError(r, 400, 'Items sochighlevel,nosuchitem are not covered by subscription or incorrect names provided.');
  });

  it('malformed bodies', async () => {
    const res = await t.app.inject({ method: 'POST', url, headers: { ...c.headers, 'content-type': 'application/json' }, payload: '{"version": "1.0",' });
    expectError({ status: res.statusCode, type: String(res.headers['content-type']), body: res.json() }, 400, 'Bad request, the request body is not valid JSON.');
    const noVersion = await post({ vehicles: ok.vehicles, dataItems: ['batteryvoltage'] });
    expect(noVersion.status).toBe(400);
    expect(noVersion.body).toMatchObject({ reasonCode: 'CAR.400', url, method: 'POST' });
    const wrongShape = await post({ version: '1.0', vehicles: 'V1RTUALV1N0000001', dataItems: ['batteryvoltage'] });
    expect(wrongShape.status).toBe(400);
    const noIdentifier = await post({ version: '1.0', vehicles: [{ vin: VIN1 }], dataItems: ['batteryvoltage'] });
    expect(noIdentifier.status).toBe(400);
    expect(noIdentifier.body.reasonText).toMatch(/identifier/);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await t.app.inject({ method: 'POST', url, headers: { ...c.headers, 'content-type': 'text/plain' }, payload: 'version=1.0' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ reasonCode: 'CAR.415', reasonText: 'Unsupported media type, use application/json.', url, method: 'POST' });
  });

  it('checks the headers before the body', async () => {
    expectError(await post({ version: '9' }, {}), 400, 'Bad request, mandatory header parameter X-Api-Key is missing.');
  });

  it('authenticates before it reads the body: broken JSON, another media type or an oversized body without a valid key get the header error', async () => {
    const raw = async (headers: Record<string, string>, payload: string) => {
      const res = await t.app.inject({ method: 'POST', url, headers, payload });
      return { status: res.statusCode, type: String(res.headers['content-type']), body: res.json() };
    };
    const json = { 'content-type': 'application/json' };
    const missing = 'Bad request, mandatory header parameter X-Api-Key is missing.';
    expectError(await raw(json, '{"version": '), 400, missing);
    expectError(await raw({ 'content-type': 'text/plain' }, 'version=1.0'), 400, missing);
    expectError(await raw(json, `"${'x'.repeat(t.services.config.BODY_LIMIT_BYTES + 10)}"`), 400, missing);
    const badKey = { ...json, 'x-api-key': 'cvd_wrong', 'x-subscription-id': c.subscriptionId };
    expectError(await raw(badKey, '{"version": '), 401, 'Unauthorized request, invalid API key.');
    // With a valid key the body's own errors come through.
    expect((await raw({ ...c.headers, ...json }, '{"version": ')).status).toBe(400);
    expect((await raw({ ...c.headers, ...json }, `"${'x'.repeat(t.services.config.BODY_LIMIT_BYTES + 10)}"`)).status).toBe(413);
  });
});
