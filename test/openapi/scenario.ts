import { adapterSecret } from '../../src/adapters/secrets.ts';
import { signBody as signIngest } from '../../src/transports/http/signature.ts';
import { ManualClock } from '../../src/clock.ts';
import type { ExamplesFile } from '../../src/http/openapi/document.ts';
import { signBody as signCallback } from '../../src/management/callback-signature.ts';
import { Browser, params, REDIRECT, runFlow } from '../consent/harness.ts';
import { proveAtManufacturer, withdrawForms } from '../consent/withdrawal-harness.ts';
import { startFleetService } from '../e2e/fleet-service.ts';
import { waitFor } from '../e2e/live-calls.ts';
import { fixture } from '../pipeline/harness.ts';
import { startReceiver } from '../push/helpers.ts';
import { normalize } from './normalize.ts';
import { Recorder } from './recorder.ts';

/*
 * One consumer's whole life with the virtual fleet, over real HTTP, recording every answer as
 * an OpenAPI example: the operator creates it, it registers a webhook,
 * activates two virtual vehicles, the user consents, the fleet starts (its simulated clock fixed
 * at NOW, so the data is the same on every run), then pull, history, push, notices, erasure,
 * the sandbox, and the manufacturer-facing and operator calls. Run by test/openapi/examples.test.ts.
 */
export const NOW = '2026-11-25T08:15:00.000Z';
const VIN1 = 'V1RTUALV1N0000001';
const VIN2 = 'V1RTUALV1N0000002';
const BRL = 'BRL00000000000001';
const UNKNOWN_VIN = 'V1RTUALV1N0000099';
const ITEMS = ['batteryvoltage', 'fuellevel', 'mileage', 'sochighlevel', 'crashseverity', 'accidentautomatic'];

export async function recordScenario(): Promise<ExamplesFile> {
  const fleet = await startFleetService(new ManualClock(new Date(NOW)), { SIM_CLOCK: `fixed:${NOW}`, INGEST_MAX_FUTURE_S: '300' });
  const { t } = fleet;
  const receiver = await startReceiver();
  try {
    const r = new Recorder(t);
    const admin = { authorization: `Bearer ${t.services.config.ADMIN_TOKEN}` };
    const badAdmin = { authorization: 'Bearer not-the-admin-token' };

    // Public and probes.
    await r.call({ op: 'getLiveness', name: 'alive', method: 'GET', path: '/health', status: 200 });
    await r.call({ op: 'getReadiness', name: 'ready', method: 'GET', path: '/ready', status: 200 });
    await r.call({ op: 'listDataItems', name: 'pushItems', method: 'GET', path: '/catalog/v1/data-items', query: { deliveryMethod: 'push' }, status: 200 });
    await r.call({ op: 'getDataItem', name: 'batteryvoltage', method: 'GET', path: '/catalog/v1/data-items/batteryvoltage', status: 200 });
    await r.call({ op: 'getDataItem', name: 'unknownItem', method: 'GET', path: '/catalog/v1/data-items/warpdrive', status: 404 });
    await r.call({ op: 'listManufacturers', name: 'manufacturers', method: 'GET', path: '/catalog/v1/manufacturers', status: 200 });
    await r.call({ op: 'listManufacturers', name: 'supplyingCharginghistory', method: 'GET', path: '/catalog/v1/manufacturers', query: { dataItem: 'charginghistory' }, status: 200 });
    await r.call({ op: 'listManufacturers', name: 'unknownItem', method: 'GET', path: '/catalog/v1/manufacturers', query: { dataItem: 'warpdrive' }, status: 400 });
    await r.call({ op: 'getManufacturer', name: 'virtual', method: 'GET', path: '/catalog/v1/manufacturers/virtual', status: 200 });
    await r.call({ op: 'getManufacturer', name: 'unknownManufacturer', method: 'GET', path: '/catalog/v1/manufacturers/no-such-maker', status: 404 });

    // The operator creates the consumer, a second key, and the subscription.
    const consumer = await r.call({ op: 'createConsumer', name: 'created', method: 'POST', path: '/admin/v1/consumers', headers: admin, body: { name: 'Fleet App GmbH' }, status: 201 });
    await r.call({ op: 'createConsumer', name: 'invalidAdminToken', method: 'POST', path: '/admin/v1/consumers', headers: badAdmin, body: { name: 'Fleet App GmbH' }, status: 401 });
    await r.call({ op: 'createConsumer', name: 'noName', method: 'POST', path: '/admin/v1/consumers', headers: admin, body: {}, status: 400 });
    const cid = consumer.consumerId as string;
    await r.call({ op: 'listConsumers', name: 'consumers', method: 'GET', path: '/admin/v1/consumers', headers: admin, status: 200 });
    await r.call({ op: 'getConsumer', name: 'consumer', method: 'GET', path: `/admin/v1/consumers/${cid}`, headers: admin, status: 200 });
    await r.call({ op: 'getConsumer', name: 'unknownConsumer', method: 'GET', path: '/admin/v1/consumers/3b241101-e2bb-4255-8caf-4136c566a962', headers: admin, status: 404 });
    const second = await r.call({ op: 'createApiKey', name: 'rotation', method: 'POST', path: `/admin/v1/consumers/${cid}/api-keys`, headers: admin, status: 201 });
    await r.call({ op: 'listApiKeys', name: 'keys', method: 'GET', path: `/admin/v1/consumers/${cid}/api-keys`, headers: admin, status: 200 });
    await r.call({ op: 'revokeApiKey', name: 'revoked', method: 'DELETE', path: `/admin/v1/consumers/${cid}/api-keys/${second.keyId}`, headers: admin, status: 204 });
    const sub = await r.call({
      op: 'createSubscription',
      name: 'created',
      method: 'POST',
      path: '/admin/v1/subscriptions',
      headers: admin,
      body: { consumerId: cid, dataItems: ITEMS, allowedRedirectUrls: [REDIRECT], legalBasis: 'CONSENT' },
      status: 201,
    });
    await r.call({ op: 'createSubscription', name: 'unknownItem', method: 'POST', path: '/admin/v1/subscriptions', headers: admin, body: { consumerId: cid, dataItems: ['warpdrive'] }, status: 400 });
    const sid = sub.subscriptionId as string;
    await r.call({ op: 'listSubscriptions', name: 'ofConsumer', method: 'GET', path: '/admin/v1/subscriptions', query: { consumerId: cid }, headers: admin, status: 200 });
    await r.call({ op: 'getSubscription', name: 'subscription', method: 'GET', path: `/admin/v1/subscriptions/${sid}`, headers: admin, status: 200 });

    const c = { consumerId: cid, subscriptionId: sid, apiKey: consumer.apiKey as string, headers: { 'x-api-key': consumer.apiKey as string, 'x-subscription-id': sid } };
    const h = c.headers;

    // The consumer registers its webhook: updates of batteryvoltage, and both notices.
    await r.call({ op: 'putWebhook', name: 'registered', method: 'PUT', path: '/push/v1/webhook', headers: h, body: { url: receiver.url, items: ['batteryvoltage'], minIntervalSeconds: 3600, notices: ['vehicle.data_erased', 'consent.revoked'] }, status: 200 });
    await r.call({ op: 'putWebhook', name: 'itemNotInSubscription', method: 'PUT', path: '/push/v1/webhook', headers: h, body: { url: receiver.url, items: ['tirepressure'] }, status: 400 });
    await r.call({ op: 'putWebhook', name: 'notJson', method: 'PUT', path: '/push/v1/webhook', headers: { ...h, 'content-type': 'text/plain' }, raw: 'url=x', status: 415 });
    // A second endpoint: only the crash events, signed with its own secret.
    await r.call({ op: 'putWebhookEndpoint', name: 'registered', method: 'PUT', path: '/push/v1/webhooks/alerts', headers: h, body: { url: receiver.url, events: ['accidentautomatic'] }, status: 200 });
    await r.call({ op: 'putWebhookEndpoint', name: 'eventNotInSubscription', method: 'PUT', path: '/push/v1/webhooks/alerts', headers: h, body: { url: receiver.url, events: ['mileage'] }, status: 400 });
    await r.call({ op: 'getWebhookEndpoint', name: 'alerts', method: 'GET', path: '/push/v1/webhooks/alerts', headers: h, status: 200 });
    await r.call({ op: 'getWebhookEndpoint', name: 'none', method: 'GET', path: '/push/v1/webhooks/nope', headers: h, status: 404 });
    await r.call({ op: 'listWebhookEndpoints', name: 'two', method: 'GET', path: '/push/v1/webhooks', headers: h, status: 200 });
    await r.call({ op: 'sendWebhookEndpointTestEvent', name: 'received', method: 'POST', path: '/push/v1/webhooks/alerts/test', headers: h, status: 200 });
    await r.call({ op: 'rotateWebhookEndpointSecret', name: 'rotated', method: 'POST', path: '/push/v1/webhooks/alerts/rotate-secret', headers: h, status: 200 });
    await r.call({ op: 'deleteWebhookEndpoint', name: 'deleted', method: 'DELETE', path: '/push/v1/webhooks/alerts', headers: h, status: 204 });
    await r.call({ op: 'deleteWebhookEndpoint', name: 'none', method: 'DELETE', path: '/push/v1/webhooks/alerts', headers: h, status: 404 });
    // A test event: the receiver answers at once (its body is empty).
    await r.call({ op: 'sendWebhookTestEvent', name: 'received', method: 'POST', path: '/push/v1/webhook/test', headers: h, status: 200 });

    // Activation, with the contract's errors.
    await r.call({ op: 'changeVehicles', name: 'activate', method: 'PUT', path: '/management/v1/vehicles', headers: h, body: { action: 'activate', vins: [VIN1, VIN2] }, status: 202 });
    await r.call({ op: 'changeVehicles', name: 'emptyList', method: 'PUT', path: '/management/v1/vehicles', headers: h, body: { action: 'activate', vins: [] }, status: 400 });
    await r.call({ op: 'changeVehicles', name: 'missingApiKey', method: 'PUT', path: '/management/v1/vehicles', headers: { 'x-subscription-id': sid }, body: { action: 'activate', vins: [VIN1] }, status: 400 });
    await r.call({ op: 'changeVehicles', name: 'invalidApiKey', method: 'PUT', path: '/management/v1/vehicles', headers: { ...h, 'x-api-key': 'cvd_live_not-a-key' }, body: { action: 'activate', vins: [VIN1] }, status: 401 });
    await waitFor(async () => {
      const list = await (await fetch(`${t.origin}/management/v1/vehicles`, { headers: h })).json();
      return (list as { status: string }[]).filter((v) => v.status === 'ACTIVATED').length === 2;
    }, 'two ACTIVATED vehicles');
    await r.call({ op: 'listVehicles', name: 'activated', method: 'GET', path: '/management/v1/vehicles', headers: h, status: 200 });
    await r.call({ op: 'listVehicles', name: 'page', method: 'GET', path: '/management/v1/vehicles', query: { limit: '1' }, headers: h, status: 200 });
    await r.call({ op: 'getVehicle', name: 'activated', method: 'GET', path: `/management/v1/vehicles/${VIN1}`, headers: h, status: 200 });
    await r.call({ op: 'getVehicle', name: 'notInSubscription', method: 'GET', path: `/management/v1/vehicles/${UNKNOWN_VIN}`, headers: h, status: 404 });

    // The user consents for both vehicles; the consumer confirms the first redirect's code.
    const flow1 = await runFlow(t, c, new Browser(), { params: { vin: VIN1 } });
    const flow2 = await runFlow(t, c, new Browser(), { params: { vin: VIN2 } });
    const code = params(flow1.callback.location).get('code')!;
    await r.call({ op: 'confirmConsent', name: 'confirmed', method: 'POST', path: `/api/consent/provisioning/confirmation/${code}`, headers: { 'x-api-key': c.apiKey }, status: 200 });
    await r.call({ op: 'confirmConsent', name: 'alreadyConfirmed', method: 'POST', path: `/api/consent/provisioning/confirmation/${code}`, headers: { 'x-api-key': c.apiKey }, status: 409 });
    await r.call({ op: 'confirmConsent', name: 'unknownCode', method: 'POST', path: '/api/consent/provisioning/confirmation/no-such-code', headers: { 'x-api-key': c.apiKey }, status: 404 });
    await r.call({ op: 'confirmConsent', name: 'invalidApiKey', method: 'POST', path: `/api/consent/provisioning/confirmation/${code}`, headers: { 'x-api-key': 'cvd_live_not-a-key' }, status: 401 });

    // The fleet starts: every vehicle publishes its state at NOW.
    await fleet.startFleet();
    const inVehicle = (vins: string[], dataItems: string[]) => ({ version: '1.0', vehicles: vins.map((value) => ({ identifier: { type: 'VIN', value } })), dataItems });
    await waitFor(async () => {
      const res = await fetch(`${t.origin}/delivery/v1/in-vehicle`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify(inVehicle([VIN1], ['batteryvoltage', 'mileage', 'fuellevel'])) });
      const answer = (await res.json()) as { inVehicleData: { response?: Record<string, { dataPoint?: unknown }> }[] };
      return Object.values(answer.inVehicleData[0]?.response ?? {}).every((x) => x.dataPoint);
    }, 'the data of V1RTUALV1N0000001');

    // What the combustion car supplies of the subscription's items, and what has arrived.
    await r.call({ op: 'getVehicleCapabilities', name: 'combustionCar', method: 'GET', path: `/management/v1/vehicles/${VIN1}/capabilities`, headers: h, status: 200 });
    await r.call({ op: 'getVehicleCapabilities', name: 'notInSubscription', method: 'GET', path: `/management/v1/vehicles/${UNKNOWN_VIN}/capabilities`, headers: h, status: 404 });

    // Pull: one consented vehicle, one whose consent will be withdrawn, a malformed VIN.
    await r.call({ op: 'deliverInVehicle', name: 'latestData', method: 'POST', path: '/delivery/v1/in-vehicle', headers: h, body: inVehicle([VIN1, 'V1RTUALV1N00000IO'], ['batteryvoltage', 'mileage', 'fuellevel', 'sochighlevel', 'accidentautomatic']), status: 200 });
    await r.call({ op: 'deliverInVehicle', name: 'unsupportedVersion', method: 'POST', path: '/delivery/v1/in-vehicle', headers: h, body: { ...inVehicle([VIN1], ['batteryvoltage']), version: '2.0' }, status: 400 });
    await r.call({ op: 'deliverInVehicle', name: 'itemsNotCovered', method: 'POST', path: '/delivery/v1/in-vehicle', headers: h, body: inVehicle([VIN1], ['tirepressure']), status: 400 });
    await r.call({ op: 'deliverInVehicle', name: 'unknownSubscription', method: 'POST', path: '/delivery/v1/in-vehicle', headers: { ...h, 'x-subscription-id': '3b241101-e2bb-4255-8caf-4136c566a962' }, body: inVehicle([VIN1], ['batteryvoltage']), status: 400 });

    // History, paged.
    const page = await r.call({ op: 'getHistory', name: 'firstPage', method: 'GET', path: `/delivery/v1/history/${VIN1}/mileage`, query: { limit: '1' }, headers: h, status: 200 });
    if (page.nextCursor) await r.call({ op: 'getHistory', name: 'nextPage', method: 'GET', path: `/delivery/v1/history/${VIN1}/mileage`, query: { limit: '1', cursor: page.nextCursor }, headers: h, status: 200 });
    await r.call({ op: 'getHistory', name: 'notActivated', method: 'GET', path: `/delivery/v1/history/${UNKNOWN_VIN}/mileage`, headers: h, status: 404 });
    await r.call({ op: 'getHistory', name: 'badCursor', method: 'GET', path: `/delivery/v1/history/${VIN1}/mileage`, query: { cursor: 'not-ours' }, headers: h, status: 400 });

    // The update push of batteryvoltage reached the webhook.
    const push = await waitFor(async () => receiver.requests.find((q) => q.body.includes('"inVehicleResponse"') && !q.body.includes('"test":true')), 'an update push').then((x) => x!);
    r.webhook('vehicleData', push.headers, push.body);
    await waitFor(async () => ((await (await fetch(`${t.origin}/push/v1/deliveries?status=DELIVERED`, { headers: h })).json()) as unknown[]).length > 0, 'a DELIVERED delivery');
    await r.call({ op: 'getWebhook', name: 'enabled', method: 'GET', path: '/push/v1/webhook', headers: h, status: 200 });
    const delivered = await r.call({ op: 'listDeliveries', name: 'delivered', method: 'GET', path: '/push/v1/deliveries', query: { status: 'DELIVERED' }, headers: h, status: 200 });
    await r.call({ op: 'listDeliveries', name: 'badStatus', method: 'GET', path: '/push/v1/deliveries', query: { status: 'LOST' }, headers: h, status: 400 });
    await r.call({ op: 'replayDelivery', name: 'replayed', method: 'POST', path: `/push/v1/deliveries/${delivered[0].transactionId}/replay`, headers: h, status: 202 });
    await r.call({ op: 'replayDelivery', name: 'unknown', method: 'POST', path: '/push/v1/deliveries/3b241101-e2bb-4255-8caf-4136c566a962/replay', headers: h, status: 404 });
    await r.call({ op: 'replayDeadDeliveries', name: 'range', method: 'POST', path: '/push/v1/deliveries/replay', headers: h, body: { since: '2026-11-25T00:00:00Z' }, status: 202 });
    await r.call({ op: 'rotateWebhookSecret', name: 'rotated', method: 'POST', path: '/push/v1/webhook/rotate-secret', headers: h, status: 200 });

    // The sandbox (the simulator is on): VIN1 crashes now; a vehicle outside the subscription cannot.
    await r.call({ op: 'raiseSandboxEvent', name: 'crash', method: 'POST', path: `/sandbox/v1/vehicles/${VIN1}/events`, headers: h, body: { type: 'accidentautomatic', severity: 2, zones: ['FRONT_RIGHT'] }, status: 202 });
    await r.call({ op: 'raiseSandboxEvent', name: 'notInSubscription', method: 'POST', path: `/sandbox/v1/vehicles/${UNKNOWN_VIN}/events`, headers: h, body: { type: 'accidentcallmanual' }, status: 404 });
    await r.call({ op: 'raiseSandboxEvent', name: 'fieldOfAnotherEvent', method: 'POST', path: `/sandbox/v1/vehicles/${VIN1}/events`, headers: h, body: { type: 'accidentcallmanual', reason: 'x' }, status: 400 });

    // The user withdraws VIN2's consent at the portal: a consent.revoked notice.
    const b = new Browser();
    const { callbackUrl } = await proveAtManufacturer(t, b, VIN2);
    const list = await b.get((await b.get(callbackUrl)).location!);
    const { csrf } = withdrawForms(list.body);
    await b.post(`${t.origin}/withdraw/consents`, { csrf, consentId: flow2.consentId });
    await r.call({ op: 'listConsents', name: 'ofVehicle', method: 'GET', path: '/consent/v1/consents', query: { vin: VIN2 }, headers: h, status: 200 });
    await r.call({ op: 'getHistory', name: 'noConsent', method: 'GET', path: `/delivery/v1/history/${VIN2}/mileage`, headers: h, status: 403 });
    const revocation = await waitFor(async () => receiver.requests.find((q) => q.body.includes('"consent.revoked"')), 'the revocation notice').then((x) => x!);
    r.webhook('consentRevoked', revocation.headers, revocation.body);

    // Manufacturer-facing calls: a signed ingest batch (one record stamped in the future is
    // quarantined) and the activation callback of a callback-mode manufacturer.
    const borealis = adapterSecret(t.services.config, t.services.adapters.get('borealis')!);
    const nowS = Math.floor(Date.parse(NOW) / 1000);
    const record = JSON.parse(fixture('borealis', 'borealis.vehicle-status.json')) as { readings: { capturedAt: number }[] };
    record.readings[0]!.capturedAt = nowS + 86_400;
    const batch = JSON.stringify({ batchId: 'b-1', records: [record] });
    await r.call({ op: 'ingestBatch', name: 'accepted', method: 'POST', path: '/ingest/v1/borealis', headers: { 'x-borealis-signature': signIngest(borealis, nowS, batch) }, raw: batch, status: 202 });
    await r.call({ op: 'ingestBatch', name: 'badSignature', method: 'POST', path: '/ingest/v1/borealis', headers: { 'x-borealis-signature': signIngest('wrong', nowS, batch) }, raw: batch, status: 401 });
    await r.call({ op: 'changeVehicles', name: 'activateCallbackManufacturer', method: 'PUT', path: '/management/v1/vehicles', headers: h, body: { action: 'activate', vins: [BRL] }, status: 202 });
    const answer = JSON.stringify({ activations: [{ vin: BRL, status: 'ACTIVATED' }] });
    await r.call({ op: 'activationCallback', name: 'activated', method: 'POST', path: '/management/v1/manufacturers/borealis/activation-callback', headers: { 'x-borealis-signature': signCallback(answer, borealis, Date.parse(NOW)) }, raw: answer, status: 200 });
    await r.call({ op: 'activationCallback', name: 'badSignature', method: 'POST', path: '/management/v1/manufacturers/borealis/activation-callback', headers: { 'x-borealis-signature': signCallback(answer, 'wrong', Date.parse(NOW)) }, raw: answer, status: 403 });

    // Operator calls: quarantine, mappings, failed batches, provenance, the virtual manufacturer's faults.
    await waitFor(async () => ((await (await fetch(`${t.origin}/admin/v1/quarantine`, { headers: admin })).json()) as { items: unknown[] }).items.length > 0, 'a quarantined message');
    const quarantine = await r.call({ op: 'listQuarantine', name: 'timeInFuture', method: 'GET', path: '/admin/v1/quarantine', query: { manufacturer: 'borealis' }, headers: admin, status: 200 });
    const qid = quarantine.items[0].id as string;
    await r.call({ op: 'getQuarantined', name: 'message', method: 'GET', path: `/admin/v1/quarantine/${qid}`, headers: admin, status: 200 });
    await r.call({ op: 'getQuarantined', name: 'invalidAdminToken', method: 'GET', path: `/admin/v1/quarantine/${qid}`, headers: badAdmin, status: 401 });
    await r.call({ op: 'reprocessQuarantine', name: 'byId', method: 'POST', path: '/admin/v1/quarantine/reprocess', headers: admin, body: { ids: [qid] }, status: 202 });
    await r.call({ op: 'dryRunMapping', name: 'vehicleStatus', method: 'POST', path: '/admin/v1/mappings/borealis/dry-run', headers: admin, body: { messageType: 'vehicle-status', message: JSON.parse(fixture('borealis', 'borealis.vehicle-status.json')) }, status: 200 });
    await r.call({ op: 'dryRunMapping', name: 'unknownManufacturer', method: 'POST', path: '/admin/v1/mappings/acme/dry-run', headers: admin, body: { messageType: 'vehicle-status', message: {} }, status: 404 });
    await r.call({ op: 'countFailedBatches', name: 'none', method: 'GET', path: '/admin/v1/pipeline/failed-batches', headers: admin, status: 200 });
    await r.call({ op: 'retryFailedBatches', name: 'none', method: 'POST', path: '/admin/v1/pipeline/failed-batches/retry', headers: admin, status: 202 });
    await r.call({ op: 'getDataPointProvenance', name: 'mileage', method: 'GET', path: `/admin/v1/data-points/${VIN1}/mileage/history`, query: { limit: '2' }, headers: admin, status: 200 });
    await r.call({ op: 'setVirtualOemFault', name: 'off', method: 'PUT', path: '/admin/v1/oem/virtual/fault', headers: admin, body: { mode: 'none' }, status: 200 });
    await r.call({ op: 'getVirtualOemFault', name: 'off', method: 'GET', path: '/admin/v1/oem/virtual/fault', headers: admin, status: 200 });
    await r.call({ op: 'getVirtualOemFault', name: 'invalidAdminToken', method: 'GET', path: '/admin/v1/oem/virtual/fault', headers: badAdmin, status: 401 });

    // The consumer revokes VIN1's consent itself; then the operator erases the vehicles.
    await r.call({ op: 'revokeConsent', name: 'revoked', method: 'DELETE', path: `/consent/v1/consents/${flow1.consentId}`, headers: h, status: 200 });
    await r.call({ op: 'revokeConsent', name: 'unknown', method: 'DELETE', path: '/consent/v1/consents/3b241101-e2bb-4255-8caf-4136c566a962', headers: h, status: 404 });
    await r.call({ op: 'eraseSubscriptionVehicleData', name: 'erased', method: 'DELETE', path: `/admin/v1/subscriptions/${sid}/vehicles/${VIN2}/data`, headers: admin, status: 200 });
    await r.call({ op: 'eraseVehicleData', name: 'erased', method: 'DELETE', path: `/admin/v1/vehicles/${VIN1}/data`, headers: admin, status: 200 });
    await r.call({ op: 'eraseVehicleData', name: 'badVin', method: 'DELETE', path: '/admin/v1/vehicles/NOT-A-VIN/data', headers: admin, status: 400 });
    await r.call({ op: 'listErasures', name: 'erased', method: 'GET', path: '/consent/v1/erasures', query: { vin: VIN1 }, headers: h, status: 200 });
    await r.call({ op: 'listErasures', name: 'noVin', method: 'GET', path: '/consent/v1/erasures', headers: h, status: 400 });
    const erasure = await waitFor(async () => receiver.requests.find((q) => q.body.includes('"scope":"VEHICLE"')), 'the erasure notice').then((x) => x!);
    r.webhook('vehicleDataErased', erasure.headers, erasure.body);
    await r.call({ op: 'deleteWebhook', name: 'deleted', method: 'DELETE', path: '/push/v1/webhook', headers: h, status: 204 });
    await r.call({ op: 'deleteWebhook', name: 'none', method: 'DELETE', path: '/push/v1/webhook', headers: h, status: 404 });
    await r.call({ op: 'getWebhook', name: 'none', method: 'GET', path: '/push/v1/webhook', headers: h, status: 404 });
    await r.call({ op: 'sendWebhookTestEvent', name: 'none', method: 'POST', path: '/push/v1/webhook/test', headers: h, status: 404 });

    return normalize(r.file, { origin: t.origin, receiver: receiver.url }, [code, qid]);
  } finally {
    await receiver.close();
    await fleet.close();
  }
}
