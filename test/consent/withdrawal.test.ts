import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { verifyWebhook } from '../../src/push/signing/verify-webhook.ts';
import type { Running } from '../../src/running.ts';
import { deliveryBody } from '../delivery/fixtures.ts';
import { eventually } from '../push/helpers.ts';
import { Browser, hiddenFields, portalUrl, startLiveApp, VIN, type LiveApp } from './harness.ts';
import { activeConsent, party, proveAtManufacturer, startWorkers, withdrawForms, type Party } from './withdrawal-harness.ts';

/**
 * Withdrawing consent at the portal (GDPR Art. 7(3): as easy as giving it) over real HTTP: the portal's
 * pages, the simulated manufacturer's login, the SQLite store, the suite's Redis, the push
 * workers and local webhook receivers.
 */
describe('withdrawing consent at the portal', () => {
  let t: LiveApp;
  let workers: Running[] = [];
  let fleet: Party;
  let insurer: Party;
  const ids: Record<string, string> = {};
  // Real time as the start, so the Standard Webhooks library's own clock accepts the signatures.
  const clock = new ManualClock(new Date().toISOString());

  beforeAll(async () => {
    t = await startLiveApp({ clock, env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true', PUSH_WATCH_CACHE_MS: '0' } });
    // Both webhooks take the notice: only the consumer whose consent was withdrawn gets one.
    fleet = await party(t, 'Fleet App GmbH', { notices: ['consent.revoked'] });
    insurer = await party(t, 'Insurer AG', { notices: ['consent.revoked'] });
    ids.fleet = await activeConsent(t, fleet, VIN);
    ids.insurer = await activeConsent(t, insurer, VIN);
    workers = await startWorkers(t);
  }, 30_000);
  afterAll(async () => {
    for (const w of workers) await w.close();
    await fleet?.receiver.close();
    await insurer?.receiver.close();
    await t?.cleanup();
  });

  const read = async (p: Party) => {
    const res = await fetch(`${t.origin}/delivery/v1/in-vehicle`, {
      method: 'POST',
      headers: { ...p.consumer.headers, 'content-type': 'application/json' },
      body: JSON.stringify(deliveryBody([VIN], ['crashseverity'])),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { inVehicleData: { error?: { code: string } }[] }).inVehicleData[0]!;
  };
  const notices = async (p: Party) =>
    (await t.services.store.deliveries.list({ subscriptionId: p.consumer.subscriptionId, limit: 100 })).filter((d) => d.kind === 'notice');

  it('the user proves the vehicle at the manufacturer, sees its consents, withdraws one: data stops at once and the consumer gets one signed notice', async () => {
    expect((await read(fleet)).error).toBeUndefined();
    const b = new Browser();
    const { start, go, callbackUrl } = await proveAtManufacturer(t, b, VIN.toLowerCase());
    // The start page: the portal's headers; its form may lead on to the manufacturers.
    expect(start.headers.get('content-security-policy')).toContain(`form-action 'self' ${t.origin}`);
    expect(start.headers.get('x-frame-options')).toBe('DENY');
    expect(start.body).toContain('<label for="f-vin">');
    // The consent flow's OAuth client: PKCE S256, a state, no data asked for.
    const auth = new URL(go.location!);
    expect(auth.origin + auth.pathname).toBe(`${t.origin}/oem/virtual/authorize`);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('scope')).toBe('vehicle:verify');
    expect(auth.searchParams.get('redirect_uri')).toBe(`${t.origin}/callback/virtual`);
    // Redis holds the round trip under hashes only, the VIN sealed.
    const keys = await t.services.redis.keys(`${t.services.config.QUEUE_PREFIX}:withdraw:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(`${k} ${await t.services.redis.get(k)}`).not.toContain(VIN);

    const callback = await b.get(callbackUrl);
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${t.origin}/withdraw/consents`);
    const list = await b.get(callback.location!);
    expect(list.status).toBe(200);
    expect(list.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(list.body).toContain('Fleet App GmbH');
    expect(list.body).toContain('Insurer AG');
    expect(list.body).toContain('Crash severity');
    const { consentIds, csrf } = withdrawForms(list.body);
    expect(consentIds.sort()).toEqual([ids.fleet, ids.insurer].sort());

    const withdrawn = await b.post(`${t.origin}/withdraw/consents`, { csrf, consentId: ids.fleet! });
    expect(withdrawn.status).toBe(303);
    expect(withdrawn.location).toBe(`${t.origin}/withdraw/consents`);
    const after = await b.get(withdrawn.location!);
    expect(after.body).toContain('Your consent for Fleet App GmbH is withdrawn');
    expect(withdrawForms(after.body).consentIds).toEqual([ids.insurer]);

    // At once: the consent is REVOKED and the next read of the VIN is refused; the other consumer reads on.
    expect((await t.services.store.consents.get(ids.fleet!))?.state).toBe('REVOKED');
    expect((await read(fleet)).error?.code).toBe('CAR.VE.905');
    expect((await read(insurer)).error).toBeUndefined();

    // Exactly one signed, verifiable consent.revoked notice, to that consumer only.
    const [req] = await fleet.receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(fleet.receiver.requests).toHaveLength(1);
    expect(insurer.receiver.requests).toHaveLength(0);
    const headers = req!.headers as Record<string, string>;
    const payload = new Webhook(fleet.secret).verify(req!.body, headers);
    expect(verifyWebhook(fleet.secret, headers, req!.body, { now: clock.now() })).toEqual(payload);
    expect(() => verifyWebhook(insurer.secret, headers, req!.body, { now: clock.now() })).toThrow('No matching signature found');
    const [notice] = await notices(fleet);
    expect(payload).toEqual({
      forwardedAt: expect.any(String),
      transactionId: notice!.transactionId,
      subscriptionId: fleet.consumer.subscriptionId,
      type: 'consent.revoked',
      consentRevoked: { consentId: ids.fleet, identifier: { type: 'VIN', value: VIN }, revokedAt: clock.now().toISOString(), by: 'DATA_SUBJECT' },
    });
    await eventually(async () => (await notices(fleet))[0]?.status === 'DELIVERED', 5_000, 'the notice DELIVERED');
    expect(notice).toMatchObject({ vin: '', item: 'consent.revoked', kind: 'notice' });

    // The audit event: by whom, the VIN only as its pseudonym.
    const audit = await t.services.store.audit.list({ type: 'consent.revoked', subject: ids.fleet! });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ by: 'DATA_SUBJECT', vin: t.services.secrets.pseudonym(VIN), notice: notice!.transactionId });
    expect(JSON.stringify(audit)).not.toContain(VIN);

    // Withdrawing it again changes nothing and tells no one again.
    const again = await b.post(`${t.origin}/withdraw/consents`, { csrf, consentId: ids.fleet! });
    expect(again.status).toBe(404);
    expect(await notices(fleet)).toHaveLength(1);
  });

  it("asks for the scope the manufacturer's manifest names for proving control of a vehicle", async () => {
    const auth = t.services.adapters.get('virtual')!.manifest.authorization;
    auth.verifyScope = 'urn:virtual:owner-check';
    try {
      const b = new Browser();
      const start = await b.get(`${t.origin}/withdraw`);
      const go = await b.post(`${t.origin}/withdraw`, { ...hiddenFields(start.body), vin: VIN });
      expect(go.status).toBe(303);
      expect(new URL(go.location!).searchParams.get('scope')).toBe('urn:virtual:owner-check');
    } finally {
      delete auth.verifyScope;
    }
  });

  it('the portal page where consent is given links to the withdrawal page', async () => {
    const page = await new Browser().get(portalUrl(t, fleet.consumer));
    expect(page.body).toContain(`<a href="${t.origin}/withdraw">`);
  });

  it("a consumer's own DELETE revokes without a notice (it knows)", async () => {
    const res = await fetch(`${t.origin}/consent/v1/consents/${ids.insurer}`, { method: 'DELETE', headers: insurer.consumer.headers });
    expect(res.status).toBe(200);
    expect((await read(insurer)).error?.code).toBe('CAR.VE.905');
    await new Promise((r) => setTimeout(r, 500));
    expect(insurer.receiver.requests).toHaveLength(0);
    expect(await notices(insurer)).toEqual([]);
    const [audit] = await t.services.store.audit.list({ type: 'consent.revoked', subject: ids.insurer! });
    expect(audit!.details).toMatchObject({ by: 'CONSUMER', notice: null });
  });

  it('lists an active consent whose vehicle is not activated in that subscription (yet): it is withdrawable too', async () => {
    const lessor = await party(t, 'Lessor KG');
    try {
      await activeConsent(t, lessor, VIN);
      await t.services.store.vehicles.deleteBySubscriptionAndVin(lessor.consumer.subscriptionId, VIN);
      const b = new Browser();
      const { callbackUrl } = await proveAtManufacturer(t, b, VIN);
      const callback = await b.get(callbackUrl);
      const list = await b.get(callback.location!);
      expect(list.status).toBe(200);
      expect(list.body).toContain('Lessor KG');
    } finally {
      await lessor.receiver.close();
    }
  });
});
