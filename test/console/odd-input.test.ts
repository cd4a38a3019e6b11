import { afterAll, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp } from '../helpers/app.ts';
import { signIn } from './session.ts';

const t = await createTestApp();
const { cookie, csrf } = await signIn(t.app);
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

/** The fuzz test's first findings (test/fuzz/console.test.ts), kept as plain examples. */
describe('console pages given odd input', () => {
  afterAll(async () => t.cleanup());

  it('a search given twice uses the first value, escaped, where it answered 500', async () => {
    const res = await get('/console/fleet?vin=%3Cscript%3Ex()%3C%2Fscript%3E&vin=V1RT');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('name="vin" value="&#60;script&#62;x()&#60;/script&#62;"');
    expect(res.body).toContain('A VIN has up to 17 digits');
    expect(res.body).not.toContain('<script>x()');
    const map = await get('/console/fleet/map.json?vin=V1RT&vin=&manufacturer=virtual&manufacturer=borealis');
    expect(map.statusCode).toBe(200);
    expect(map.json()).toEqual({ vehicles: [] });
  });

  it('"reprocess all" with its manufacturer given twice takes the first, never every manufacturer', async () => {
    const at = t.services.clock.now().toISOString();
    const entry = (id: string, manufacturer: string) => ({
      id, manufacturer, messageType: 'telemetry', code: 'DECODE_FAILED' as const, reason: 'odd', mappingVersion: null, vin: null,
      topic: null, raw: 'not json', rawEncoding: 'utf8' as const, rawTruncated: false, receivedAt: at, quarantinedAt: at, lastFailedAt: at, failures: 1,
    });
    await t.services.store.quarantine.put(entry('qoddvirtual', 'virtual'));
    await t.services.store.quarantine.put(entry('qoddborealis', 'borealis'));
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/quarantine/reprocess',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(csrf)}&all=1&code=DECODE_FAILED&manufacturer=virtual&manufacturer=borealis`,
    });
    expect(res.statusCode).toBe(303);
    const outcome = await get(res.headers.location as string);
    expect(outcome.body).toContain('qoddvirtual');
    expect(outcome.body).not.toContain('qoddborealis');
  });

  it('a new subscription\'s fields given twice: the items add up, the first legal basis counts', async () => {
    const a = await addConsumer(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `/console/consumers/${a.consumerId}/subscriptions`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(csrf)}&dataItems=mileage&dataItems=fuellevel&legalBasis=CONTRACT&legalBasis=CONSENT`,
    });
    expect(res.statusCode).toBe(303);
    const created = (await t.services.store.subscriptions.listByConsumer(a.consumerId)).find((s) => s.subscriptionId !== a.subscriptionId)!;
    expect(created.dataItems).toEqual(['mileage', 'fuellevel']);
    expect(created.legalBasis).toBe('CONTRACT');
  });

  it('an id longer than the router takes, or a page that does not exist, is the console\'s 404 page', async () => {
    for (const url of [`/console/consumers/${'a'.repeat(300)}`, '/console/nowhere']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toContain('<title>Error 404 · CVD console</title>');
    }
    // Without a session it is the sign-in, as for every console page.
    const anonymous = await t.app.inject({ method: 'GET', url: '/console/nowhere' });
    expect(anonymous.headers.location).toBe('/console/sign-in');
  });
});
