import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { addConsumer, createTestApp, type TestApp } from '../helpers/app.ts';
import { activeConsentRecord } from '../helpers/consents.ts';
import { unescapeHtml } from '../consent/harness.ts';

/*
 * The demo callback page shows the next command of the demo block, the pull of
 * the vehicle just consented, with the variables step 1 of the block exported.
 */
describe('/demo/callback: the next command', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.cleanup());

  const page = async (query: string) => unescapeHtml((await t.app.inject(`/demo/callback?${query}`)).body).replace(/&quot;|&#34;/g, '"');

  it('after an active consent: the pull of its vehicle, then the confirmation, both ready to paste', async () => {
    const c = await addConsumer(t, { dataItems: ['mileage', 'crashseverity', 'trunkstatus'] });
    const consent = activeConsentRecord(t.services.clock.now().toISOString(), { consumerId: c.consumerId, subscriptionId: c.subscriptionId, vin: 'V1RTUALV1N0000007' });
    await t.services.store.consents.create(consent);
    const body = await page(`code=abc123&consent_id=${consent.consentId}`);
    expect(body).toContain('pull the data of V1RTUALV1N0000007');
    expect(body).toContain(
      `curl -sS -X POST "$CVD_URL/delivery/v1/in-vehicle" -H "x-api-key: $CVD_API_KEY" -H "X-Subscription-Id: $CVD_SUBSCRIPTION_ID" -H 'content-type: application/json' ` +
        `-d '{"version":"1.0","vehicles":[{"identifier":{"type":"VIN","value":"V1RTUALV1N0000007"}}],"dataItems":["mileage","crashseverity"]}'`,
    );
    expect(body).toContain(`/api/consent/provisioning/confirmation/abc123' -H "X-API-Key: $CVD_API_KEY"`);
  });

  it('shows no pull for an unknown or inactive consent id', async () => {
    const c = await addConsumer(t);
    const revoked = activeConsentRecord(t.services.clock.now().toISOString(), { consumerId: c.consumerId, subscriptionId: c.subscriptionId, vin: 'V1RTUALV1N0000008', state: 'REVOKED' });
    await t.services.store.consents.create(revoked);
    for (const id of ['3b241101-e2bb-4255-8caf-4136c566a962', revoked.consentId]) {
      const body = await page(`code=abc&consent_id=${id}`);
      expect(body).not.toContain('/delivery/v1/in-vehicle');
      expect(body).not.toContain('V1RTUALV1N0000008');
    }
  });

  it('suggests only what applies to the vehicle: its supplied items, pushes when it has any, the sandbox crash for virtual vehicles', async () => {
    // A try-out with the simulator on, where the sandbox runs.
    const sim = await createTestApp({ env: { SIMULATOR: 'on' } });
    onTestFinished(() => sim.cleanup());
    const c = await addConsumer(sim, { dataItems: ['mileage', 'fuellevel', 'sochighlevel', 'crashseverity', 'accidentautomatic'] });
    const consentFor = async (vin: string) => {
      const consent = activeConsentRecord(sim.services.clock.now().toISOString(), { consumerId: c.consumerId, subscriptionId: c.subscriptionId, vin });
      await sim.services.store.consents.create(consent);
      return unescapeHtml((await sim.app.inject(`/demo/callback?code=abc&consent_id=${consent.consentId}`)).body).replace(/&quot;|&#34;/g, '"');
    };
    // A combustion car: no battery charge to pull; it can crash, and the sandbox makes it.
    const combustion = await consentFor('V1RTUALV1N0000001');
    expect(combustion).toContain(`"dataItems":["mileage","fuellevel","crashseverity"]`);
    expect(combustion).toContain('Then step 4 of the block receives its pushes, and step 5 makes it crash.');
    // A polled manufacturer's vehicle: the sandbox does not drive it, so no step 5.
    const kestrel = await consentFor('KESTRELV1N0000002');
    expect(kestrel).toContain('pull the data of KESTRELV1N0000002');
    expect(kestrel).toContain('Then step 4 of the block receives its pushes.');
    expect(kestrel).not.toContain('step 5');
  });
});
