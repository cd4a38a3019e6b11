import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp } from '../helpers/app.ts';
import { Browser, hiddenFields, startLiveApp, VIN, type Answer, type LiveApp } from './harness.ts';
import { activeConsent, party, proveAtManufacturer, withdrawForms, type Party } from './withdrawal-harness.ts';

const OTHER_VIN = 'V1RTUALV1N0000002';

/**
 * What the withdrawal pages refuse (GDPR Art. 7(3) without a way for strangers to withdraw or
 * even see someone's consents): another VIN than the one proved, a forged, replayed, foreign or
 * expired state, a missing or foreign CSRF token. Each is an error page and changes nothing.
 */
describe('withdrawal at the portal: refusals', () => {
  let t: LiveApp;
  let fleet: Party;
  let consentId: string;
  const clock = new ManualClock('2026-03-01T08:00:00.000Z');

  beforeAll(async () => {
    t = await startLiveApp({ clock, env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true' } });
    fleet = await party(t, 'Fleet App GmbH', { notices: ['consent.revoked'] });
    consentId = await activeConsent(t, fleet, VIN);
    await activeConsent(t, await party(t, 'Other Vehicle Ltd'), OTHER_VIN);
  }, 30_000);
  afterAll(async () => {
    await fleet?.receiver.close();
    await t?.cleanup();
  });

  /** Nothing changed: still ACTIVE, no notice row, no audit event of a revocation. */
  const unchanged = async () => {
    expect((await t.services.store.consents.get(consentId))?.state).toBe('ACTIVE');
    const rows = await t.services.store.deliveries.list({ subscriptionId: fleet.consumer.subscriptionId, limit: 100 });
    expect(rows.filter((d) => d.kind === 'notice')).toEqual([]);
    expect(await t.services.store.audit.list({ type: 'consent.revoked', subject: consentId })).toEqual([]);
  };
  const errorPage = (a: Answer, status: number, text: string) => {
    expect(a.status).toBe(status);
    expect(a.location).toBeNull();
    expect(a.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(a.body).toContain(text);
  };
  const listOf = async (b: Browser) => b.get(`${t.origin}/withdraw/consents`);

  it('a user who confirms another VIN at the manufacturer is refused and sees nothing', async () => {
    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, VIN, OTHER_VIN);
    errorPage(await b.get(callbackUrl), 400, 'confirmed another vehicle');
    errorPage(await listOf(b), 403, 'confirm your vehicle first');
    await unchanged();
  });

  it('a user who signs in at the manufacturer but unticks the proof of control is refused and sees nothing', async () => {
    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, VIN, VIN, []);
    errorPage(await b.get(callbackUrl), 200, 'You did not allow');
    errorPage(await listOf(b), 403, 'confirm your vehicle first');
    await unchanged();
  });

  it('a user who proved another VIN sees only its consents and cannot withdraw this one', async () => {
    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, OTHER_VIN);
    expect((await b.get(callbackUrl)).status).toBe(303);
    const list = await listOf(b);
    expect(list.body).toContain('Other Vehicle Ltd');
    expect(list.body).not.toContain('Fleet App GmbH');
    const { consentIds, csrf } = withdrawForms(list.body);
    expect(consentIds).toHaveLength(1);
    expect(consentIds).not.toContain(consentId);
    errorPage(await b.post(`${t.origin}/withdraw/consents`, { csrf, consentId }), 404, 'not an active consent for the vehicle you confirmed');
    await unchanged();
  });

  it('a forged state, a state of another browser and a replayed callback are refused', async () => {
    const forged = new Browser();
    await forged.get(`${t.origin}/withdraw`);
    errorPage(await forged.get(`${t.origin}/callback/virtual?state=w.forged&code=abc&iss=${encodeURIComponent(`${t.origin}/oem/virtual`)}`), 400, 'does not belong to a withdrawal');

    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, VIN);
    // Another browser with the user's callback URL: refused, and the user's round trip survives it.
    const thief = new Browser();
    await thief.get(`${t.origin}/withdraw`);
    errorPage(await thief.get(callbackUrl), 400, 'does not belong to this browser session');
    errorPage(await listOf(thief), 403, 'confirm your vehicle first');
    expect((await b.get(callbackUrl)).status).toBe(303);
    // The same answer again: used up.
    errorPage(await b.get(callbackUrl), 400, 'used already');
    await unchanged();
  });

  it('a state older than 10 minutes is refused, and so is a proof older than 10 minutes', async () => {
    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, VIN);
    clock.advance(601_000);
    errorPage(await b.get(callbackUrl), 409, 'timed out');
    errorPage(await listOf(b), 403, 'confirm your vehicle first');

    const { callbackUrl: fresh } = await proveAtManufacturer(t, b, VIN);
    expect((await b.get(fresh)).status).toBe(303);
    const { csrf } = withdrawForms((await listOf(b)).body);
    clock.advance(601_000);
    errorPage(await b.post(`${t.origin}/withdraw/consents`, { csrf, consentId }), 403, 'confirm your vehicle first');
    await unchanged();
  });

  it('a withdrawal without the CSRF token of this session is refused', async () => {
    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, VIN);
    expect((await b.get(callbackUrl)).status).toBe(303);
    const { csrf } = withdrawForms((await listOf(b)).body);
    errorPage(await b.post(`${t.origin}/withdraw/consents`, { consentId }), 403, 'This form has expired');
    errorPage(await b.post(`${t.origin}/withdraw/consents`, { csrf: `${csrf}x`, consentId }), 403, 'This form has expired');
    // The right token from another browser (no session cookie, or another session): refused too.
    const other = new Browser();
    errorPage(await other.post(`${t.origin}/withdraw/consents`, { csrf, consentId }), 403, 'This form has expired');
    await other.get(`${t.origin}/withdraw`);
    errorPage(await other.post(`${t.origin}/withdraw/consents`, { csrf, consentId }), 403, 'This form has expired');
    // And the start form without its token sends no one to the manufacturer.
    errorPage(await other.post(`${t.origin}/withdraw`, { vin: VIN }), 403, 'This form has expired');
    await unchanged();
  });

  it('the start form explains a VIN it cannot use, on the page', async () => {
    const b = new Browser();
    const start = await b.get(`${t.origin}/withdraw`);
    const bad = await b.post(`${t.origin}/withdraw`, { ...hiddenFields(start.body), vin: 'WVWZZZ1JZXW000001' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('No vehicle manufacturer connected to this service');
    expect(bad.body).toContain('aria-invalid="true"');
  });
});

describe('withdrawal pages and the portal limit', () => {
  it('count against the per-client limit of the portal', async () => {
    const t = await createTestApp({ env: { RATE_LIMIT_PORTAL_MAX: '2', RATE_LIMIT_PORTAL_WINDOW_S: '60' } });
    try {
      const hit = (url: string) => t.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.9' });
      expect((await hit('/withdraw')).statusCode).toBe(200);
      expect((await hit('/withdraw/consents')).statusCode).toBe(403);
      const limited = await hit('/withdraw');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      expect(limited.body).toContain('Too many requests');
    } finally {
      await t.cleanup();
    }
  });
});
