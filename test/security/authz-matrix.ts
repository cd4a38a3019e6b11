/**
 * The authorization matrix (no reading another's vehicle, no using another consumer's subscription): every route of the data
 * API that is addressed by a tenant-owned resource or needs a consumer's key, and every admin
 * route, × every actor → the expected answer. One runner (authz-matrix.test.ts) reads it, sends
 * each request over the real app and checks the status, the error text, that nothing of the
 * other tenant appears, and that refused requests changed nothing; it also fails when a route is
 * registered that is neither here nor in {@link PUBLIC_ROUTES}.
 * Anchor: the OWASP Authorization Testing Automation Cheat Sheet (a matrix of services × roles
 * with the expected access, and one test that replays it).
 *
 * The world every row runs in (fresh per row, authz-matrix.world.ts): consumers A and B, each
 * with a subscription, an active and a revoked API key, an activated and consented VIN with data,
 * a consent process with a confirmation code, a webhook and a DEAD push delivery. VIN4 is
 * activated in both subscriptions but consented only in B's; VIN5 is activated in A's only and
 * consented nowhere; VIN3 is activated nowhere.
 *
 * Placeholders in `url` and `body` (`{vin}`, `{consentId}`, `{code}`, `{transactionId}`,
 * `{consumerId}`, `{subscriptionId}`, `{keyId}`) name the target's objects. On data routes the
 * target is A's objects (the caller's own), except for the `foreignObject` actor (B's) and the
 * `foreignConsent` actor (VIN4). On admin routes the target is always B's objects: no consumer
 * may touch another's, only the operator may.
 */
import { apiErrors } from '../../src/errors.ts';
import { VEHICLE_ERRORS } from '../../src/delivery/error-codes.ts';
import { deliveryBody } from '../delivery/fixtures.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Adapter } from '../../src/adapters/manifest.ts';
import { hostedIssuers } from '../../src/virtual/index.ts';

/** The simulated servers the virtual wing mounts: one per issuer path the manifests declare. */
function hostedServers(): string[] {
  const root = join(import.meta.dirname, '..', '..', 'adapters');
  const adapters = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({ manifest: JSON.parse(readFileSync(join(root, e.name, 'manifest.json'), 'utf8')) }) as Adapter);
  return hostedIssuers(adapters);
}

/** Who calls, with which credentials (the runner builds the headers, authz-matrix.world.ts). */
export const ACTORS = [
  /** A's key + A's subscription, on A's own objects. On admin routes: a consumer key there. */
  'owner',
  /** A's key + A's subscription, addressing B's object (BOLA, OWASP API1 scenario 2). */
  'foreignObject',
  /** A's key + A's subscription, on VIN4: activated in A's subscription, consented only in B's. */
  'foreignConsent',
  /** A's key + B's subscription id (the tenant comes from the key, not the header). */
  'ownKeyForeignSub',
  /** B's key + A's subscription id. */
  'foreignKeyOwnSub',
  /** A's revoked key + A's subscription. */
  'revokedKey',
  /** No key at all (A's subscription header only). */
  'noKey',
  /** `Authorization: Bearer <ADMIN_TOKEN>` (+ A's subscription header): the operator. */
  'adminToken',
  /** The admin token sent as `x-api-key` (+ A's subscription). */
  'adminTokenAsKey',
  /** A's API key sent as `Authorization: Bearer` (+ A's subscription header). */
  'keyAsBearer',
] as const;
export type Actor = (typeof ACTORS)[number];

/**
 * A second request the runner sends to compare with, byte for byte after replacing the ids that
 * differ: refusing a foreign object must tell nothing more than refusing a missing one.
 * - `unknownSubscription`: the same request with a random X-Subscription-Id;
 * - `missingObject`: the same caller, addressing objects that exist nowhere (VIN3, random ids);
 * - `unconsentedVin`: the same caller, addressing VIN5 (activated here, consented nowhere).
 */
export type Probe = 'unknownSubscription' | 'missingObject' | 'unconsentedVin';

/** Values of the caller's own world that a 2xx answer must contain (proves it is not empty). */
export type OwnMarker = 'vin' | 'consentId' | 'transactionId' | 'webhookUrl' | 'dataValue';

export interface Outcome {
  status: number;
  /** The `reasonText` of the contract's error body (api-contract section 1). */
  reason?: string;
  /** Must answer exactly like this probe (status and body, the differing ids aside). */
  sameAs?: Probe;
  /** Own values the body must contain. */
  shows?: OwnMarker[];
  /** Partial JSON the body must match. */
  body?: Record<string, unknown>;
  /**
   * The operator on the admin API sees and may change every tenant's data: no foreign-data
   * check, and the world may change. Everywhere else the other tenant's values must not appear
   * (the caller's own neither, when refused), and the other tenant's state must not change.
   */
  operator?: true;
}

/** A combination that does not apply to the route, with the reason. */
export interface NotApplicable {
  na: string;
}
export type Cell = Outcome | NotApplicable;

export type AuthKind = 'subscription' | 'apiKey' | 'admin';

export interface MatrixRow {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** The route as Fastify registers it (`:param`), for the completeness check. */
  route: string;
  /** Tells apart two rows of one route. */
  variant?: string;
  /** The credentials the route takes; must agree with the OpenAPI document's `security`. */
  auth: AuthKind;
  url: string;
  body?: unknown;
  /** Every actor, explicitly: a row cannot silently leave one out. */
  cells: Record<Actor, Cell>;
}

const INVALID_KEY = apiErrors.invalidApiKey().reasonText;
const MISSING_KEY = apiErrors.missingHeader('X-Api-Key').reasonText;
const SUBSCRIPTION_NOT_FOUND = apiErrors.subscriptionNotFound().reasonText;
const INVALID_ADMIN = 'Unauthorized request, invalid admin token.';
const NOT_YOUR_CODE = 'Unauthorized request, the API key does not belong to the partner of this consent process.';

const NOT_OBJECT_ADDRESSED: NotApplicable = { na: 'the route names no object: the subscription from the key is the whole scope' };
const NOT_A_DATA_READ: NotApplicable = { na: 'no vehicle data is read, so consent does not gate it' };
const ENDPOINT_IN_OWN_SCOPE: NotApplicable = { na: 'an endpoint id names one of the caller’s own subscription’s webhook endpoints: no other tenant’s can be named' };

/** The refusals every `x-api-key` + `X-Subscription-Id` route shares (src/http/consumer-auth.ts). */
const SUBSCRIPTION_GUARD = {
  ownKeyForeignSub: { status: 400, reason: SUBSCRIPTION_NOT_FOUND, sameAs: 'unknownSubscription' },
  foreignKeyOwnSub: { status: 400, reason: SUBSCRIPTION_NOT_FOUND, sameAs: 'unknownSubscription' },
  revokedKey: { status: 401, reason: INVALID_KEY },
  noKey: { status: 400, reason: MISSING_KEY },
  // The admin token is no consumer key: it neither replaces one nor works as one.
  adminToken: { status: 400, reason: MISSING_KEY },
  adminTokenAsKey: { status: 401, reason: INVALID_KEY },
  keyAsBearer: { status: 400, reason: MISSING_KEY },
} satisfies Partial<Record<Actor, Cell>>;

/** A data route: the guard's refusals, and what the caller's own and foreign objects get. */
function data(
  row: Omit<MatrixRow, 'auth' | 'cells'>,
  cells: Pick<Record<Actor, Cell>, 'owner' | 'foreignObject' | 'foreignConsent'>,
): MatrixRow {
  return { ...row, auth: 'subscription', cells: { ...SUBSCRIPTION_GUARD, ...cells } };
}

/** An admin route (src/http/admin-auth.ts): only the bearer admin token; any consumer key is 401. */
function admin(row: Omit<MatrixRow, 'auth' | 'cells'>, operator: Omit<Outcome, 'operator'>): MatrixRow {
  const refused: Outcome = { status: 401, reason: INVALID_ADMIN };
  const noOwner: NotApplicable = { na: 'admin routes have no tenant owner: B is the target for every actor' };
  return {
    ...row,
    auth: 'admin',
    cells: {
      owner: refused,
      foreignObject: noOwner,
      foreignConsent: noOwner,
      ownKeyForeignSub: refused,
      foreignKeyOwnSub: refused,
      revokedKey: refused,
      noKey: refused,
      adminToken: { ...operator, operator: true },
      adminTokenAsKey: refused,
      keyAsBearer: refused,
    },
  };
}

const ITEM = 'batteryvoltage';

export const MATRIX: MatrixRow[] = [
  // --- Vehicle management (api-contract section 5) ---
  data(
    { method: 'PUT', route: '/management/v1/vehicles', url: '/management/v1/vehicles', body: { action: 'deactivate', vins: ['{vin}'] } },
    {
      owner: { status: 202, shows: ['vin'] },
      // Deactivating B's vehicle from A's subscription touches nothing of B's: it answers like
      // a VIN never activated here (DEACTIVATED, nothing stored), and B's row stays ACTIVATED.
      foreignObject: { status: 202, sameAs: 'missingObject' },
      foreignConsent: NOT_A_DATA_READ,
    },
  ),
  data(
    { method: 'GET', route: '/management/v1/vehicles', url: '/management/v1/vehicles' },
    { owner: { status: 200, shows: ['vin'] }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_OBJECT_ADDRESSED },
  ),
  data(
    { method: 'GET', route: '/management/v1/vehicles/:vin/capabilities', url: '/management/v1/vehicles/{vin}/capabilities' },
    {
      owner: { status: 200, shows: ['vin'], body: { status: 'ACTIVATED' } },
      foreignObject: { status: 404, reason: 'Vehicle not found in this subscription.', sameAs: 'missingObject' },
      // What arrived is the vehicle's data: B's consent does not let A see it (CAR.VE.905 as delivery).
      foreignConsent: { status: 200, sameAs: 'unconsentedVin', body: { receivedUnknown: { code: 'CAR.VE.905' } } },
    },
  ),
  data(
    { method: 'GET', route: '/management/v1/vehicles/:vin', url: '/management/v1/vehicles/{vin}' },
    {
      owner: { status: 200, shows: ['vin'], body: { status: 'ACTIVATED' } },
      foreignObject: { status: 404, reason: 'Vehicle not found in this subscription.', sameAs: 'missingObject' },
      foreignConsent: NOT_A_DATA_READ,
    },
  ),

  // --- Delivery (api-contract section 6, docs/history.md) ---
  data(
    { method: 'POST', route: '/delivery/v1/in-vehicle', url: '/delivery/v1/in-vehicle', body: deliveryBody(['{vin}'], [ITEM]) },
    {
      owner: { status: 200, shows: ['vin', 'dataValue'] },
      // A VIN activated only in B's subscription answers exactly like a never-activated VIN
      // (vehicle-level CAR.VE.903 in a 200), and B's consent does not count for A (CAR.VE.905).
      foreignObject: { status: 200, sameAs: 'missingObject', body: { inVehicleData: [{ error: { code: 'CAR.VE.903' } }] } },
      foreignConsent: { status: 200, sameAs: 'unconsentedVin', body: { inVehicleData: [{ error: { code: 'CAR.VE.905' } }] } },
    },
  ),
  data(
    { method: 'GET', route: '/delivery/v1/history/:vin/:item', url: `/delivery/v1/history/{vin}/${ITEM}` },
    {
      owner: { status: 200, shows: ['vin', 'dataValue'] },
      foreignObject: { status: 404, reason: VEHICLE_ERRORS['CAR.VE.903'], sameAs: 'missingObject' },
      foreignConsent: { status: 403, reason: VEHICLE_ERRORS['CAR.VE.905'], sameAs: 'unconsentedVin' },
    },
  ),

  // --- Consents (api-contract section 4) ---
  data(
    { method: 'GET', route: '/consent/v1/consents', variant: 'all', url: '/consent/v1/consents' },
    { owner: { status: 200, shows: ['consentId', 'vin'] }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_OBJECT_ADDRESSED },
  ),
  data(
    { method: 'GET', route: '/consent/v1/consents', variant: 'by VIN', url: '/consent/v1/consents?vin={vin}' },
    {
      owner: { status: 200, shows: ['consentId'] },
      foreignObject: { status: 200, sameAs: 'missingObject' },
      foreignConsent: { status: 200, sameAs: 'unconsentedVin' },
    },
  ),
  data(
    { method: 'DELETE', route: '/consent/v1/consents/:consentId', url: '/consent/v1/consents/{consentId}' },
    {
      owner: { status: 200, shows: ['consentId'], body: { state: 'REVOKED' } },
      foreignObject: { status: 404, reason: 'Consent not found.', sameAs: 'missingObject' },
      foreignConsent: NOT_A_DATA_READ,
    },
  ),
  data(
    // The world erased nothing, so every answer is [] (test/push/notice-opt-in.test.ts shows the
    // records): B's VIN must read exactly like a VIN that exists nowhere.
    { method: 'GET', route: '/consent/v1/erasures', url: '/consent/v1/erasures?vin={vin}' },
    {
      owner: { status: 200 },
      foreignObject: { status: 200, sameAs: 'missingObject' },
      foreignConsent: { status: 200, sameAs: 'unconsentedVin' },
    },
  ),
  {
    // Spec 4.3/7.1: the key alone authenticates; the code names the process. Another partner's
    // key is a 401 that leaves the code usable (the owner's call, run last, still succeeds).
    // Unlike the data API it tells "not your code" (401) from "no such code" (404), as the spec
    // says; guessing a code is what the 256-bit code prevents, not the status.
    method: 'POST',
    route: '/api/consent/provisioning/confirmation/:code',
    auth: 'apiKey',
    url: '/api/consent/provisioning/confirmation/{code}',
    cells: {
      owner: { status: 200, shows: ['consentId', 'vin'] },
      foreignObject: { status: 401, reason: NOT_YOUR_CODE },
      foreignConsent: NOT_A_DATA_READ,
      ownKeyForeignSub: { na: 'the call takes no X-Subscription-Id: the code names the process' },
      foreignKeyOwnSub: { status: 401, reason: NOT_YOUR_CODE },
      revokedKey: { status: 401, reason: INVALID_KEY },
      noKey: { status: 401, reason: INVALID_KEY },
      adminToken: { status: 401, reason: INVALID_KEY },
      adminTokenAsKey: { status: 401, reason: INVALID_KEY },
      keyAsBearer: { status: 401, reason: INVALID_KEY },
    },
  },

  // --- Push (api-contract section 7): the webhook is the subscription's, deliveries by id ---
  data(
    { method: 'PUT', route: '/push/v1/webhook', url: '/push/v1/webhook', body: { url: 'http://127.0.0.1:9/matrix-new' } },
    { owner: { status: 200, body: { url: 'http://127.0.0.1:9/matrix-new' } }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'GET', route: '/push/v1/webhook', url: '/push/v1/webhook' },
    { owner: { status: 200, shows: ['webhookUrl'] }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'DELETE', route: '/push/v1/webhook', url: '/push/v1/webhook' },
    { owner: { status: 204 }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'POST', route: '/push/v1/webhook/rotate-secret', url: '/push/v1/webhook/rotate-secret' },
    { owner: { status: 200 }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    // The test event goes to the subscription's own webhook (a refused connection is a 200 that says so).
    { method: 'POST', route: '/push/v1/webhook/test', url: '/push/v1/webhook/test' },
    { owner: { status: 200 }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  // Several endpoints: an endpoint id names an endpoint of the caller's own subscription (the
  // subscription comes from the key), so there is no other tenant's endpoint to address.
  data(
    { method: 'GET', route: '/push/v1/webhooks', url: '/push/v1/webhooks' },
    { owner: { status: 200, shows: ['webhookUrl'] }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'PUT', route: '/push/v1/webhooks/:endpointId', url: '/push/v1/webhooks/matrix', body: { url: 'http://127.0.0.1:9/matrix-endpoint' } },
    { owner: { status: 200, body: { endpointId: 'matrix', url: 'http://127.0.0.1:9/matrix-endpoint' } }, foreignObject: ENDPOINT_IN_OWN_SCOPE, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'GET', route: '/push/v1/webhooks/:endpointId', url: '/push/v1/webhooks/default' },
    { owner: { status: 200, shows: ['webhookUrl'], body: { endpointId: 'default' } }, foreignObject: ENDPOINT_IN_OWN_SCOPE, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'DELETE', route: '/push/v1/webhooks/:endpointId', url: '/push/v1/webhooks/default' },
    { owner: { status: 204 }, foreignObject: ENDPOINT_IN_OWN_SCOPE, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'POST', route: '/push/v1/webhooks/:endpointId/rotate-secret', url: '/push/v1/webhooks/default/rotate-secret' },
    { owner: { status: 200 }, foreignObject: ENDPOINT_IN_OWN_SCOPE, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'POST', route: '/push/v1/webhooks/:endpointId/test', url: '/push/v1/webhooks/default/test' },
    { owner: { status: 200 }, foreignObject: ENDPOINT_IN_OWN_SCOPE, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'GET', route: '/push/v1/deliveries', url: '/push/v1/deliveries' },
    { owner: { status: 200, shows: ['transactionId', 'vin'] }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'POST', route: '/push/v1/deliveries/replay', url: '/push/v1/deliveries/replay', body: { since: '2000-01-01T00:00:00Z' } },
    // Exactly A's one DEAD delivery; B's stays DEAD (the runner compares B's state).
    { owner: { status: 202, body: { replayed: 1, more: false } }, foreignObject: NOT_OBJECT_ADDRESSED, foreignConsent: NOT_A_DATA_READ },
  ),
  data(
    { method: 'POST', route: '/push/v1/deliveries/:transactionId/replay', url: '/push/v1/deliveries/{transactionId}/replay' },
    {
      owner: { status: 202, shows: ['transactionId'], body: { status: 'PENDING' } },
      foreignObject: { status: 404, reason: 'Delivery not found.', sameAs: 'missingObject' },
      foreignConsent: NOT_A_DATA_READ,
    },
  ),

  // --- Admin API (api-contract section 2 and the operators' routes), B's objects as target ---
  admin({ method: 'POST', route: '/admin/v1/consumers', url: '/admin/v1/consumers', body: { name: 'matrix' } }, { status: 201 }),
  admin({ method: 'GET', route: '/admin/v1/consumers', url: '/admin/v1/consumers' }, { status: 200 }),
  admin({ method: 'GET', route: '/admin/v1/consumers/:consumerId', url: '/admin/v1/consumers/{consumerId}' }, { status: 200 }),
  admin({ method: 'POST', route: '/admin/v1/consumers/:consumerId/api-keys', url: '/admin/v1/consumers/{consumerId}/api-keys' }, { status: 201 }),
  admin({ method: 'GET', route: '/admin/v1/consumers/:consumerId/api-keys', url: '/admin/v1/consumers/{consumerId}/api-keys' }, { status: 200 }),
  admin(
    { method: 'DELETE', route: '/admin/v1/consumers/:consumerId/api-keys/:keyId', url: '/admin/v1/consumers/{consumerId}/api-keys/{keyId}' },
    { status: 204 },
  ),
  admin(
    { method: 'POST', route: '/admin/v1/subscriptions', url: '/admin/v1/subscriptions', body: { consumerId: '{consumerId}', dataItems: [ITEM] } },
    { status: 201 },
  ),
  admin({ method: 'GET', route: '/admin/v1/subscriptions', url: '/admin/v1/subscriptions?consumerId={consumerId}' }, { status: 200 }),
  admin({ method: 'GET', route: '/admin/v1/subscriptions/:subscriptionId', url: '/admin/v1/subscriptions/{subscriptionId}' }, { status: 200 }),
  admin({ method: 'GET', route: '/admin/v1/quarantine', url: '/admin/v1/quarantine' }, { status: 200 }),
  // No such entry: a 404 (not a 401) still shows the operator got through.
  admin({ method: 'GET', route: '/admin/v1/quarantine/:id', url: '/admin/v1/quarantine/q-none' }, { status: 404 }),
  admin({ method: 'POST', route: '/admin/v1/quarantine/reprocess', url: '/admin/v1/quarantine/reprocess', body: { ids: ['q-none'] } }, { status: 202 }),
  admin({ method: 'GET', route: '/admin/v1/pipeline/failed-batches', url: '/admin/v1/pipeline/failed-batches' }, { status: 200 }),
  admin({ method: 'POST', route: '/admin/v1/pipeline/failed-batches/retry', url: '/admin/v1/pipeline/failed-batches/retry' }, { status: 202 }),
  admin(
    { method: 'POST', route: '/admin/v1/mappings/:manufacturer/dry-run', url: '/admin/v1/mappings/virtual/dry-run', body: { messageType: 'telemetry', message: {} } },
    { status: 200 },
  ),
  admin(
    { method: 'GET', route: '/admin/v1/data-points/:vin/:item/history', url: `/admin/v1/data-points/{vin}/${ITEM}/history` },
    { status: 200 },
  ),
  admin({ method: 'PUT', route: '/admin/v1/oem/virtual/fault', url: '/admin/v1/oem/virtual/fault', body: { mode: 'none' } }, { status: 200 }),
  admin({ method: 'GET', route: '/admin/v1/oem/virtual/fault', url: '/admin/v1/oem/virtual/fault' }, { status: 200 }),
  admin({ method: 'PUT', route: '/admin/v1/oem/:id/api-faults', url: '/admin/v1/oem/kestrel/api-faults', body: { serverErrors: 0 } }, { status: 200 }),
  admin({ method: 'GET', route: '/admin/v1/oem/:id/api-faults', url: '/admin/v1/oem/kestrel/api-faults' }, { status: 200 }),
  admin({ method: 'GET', route: '/admin/v1/oem/:id/api-requests', url: '/admin/v1/oem/kestrel/api-requests' }, { status: 200 }),
  admin({ method: 'DELETE', route: '/admin/v1/vehicles/:vin/data', url: '/admin/v1/vehicles/{vin}/data' }, { status: 200 }),
  admin(
    {
      method: 'DELETE',
      route: '/admin/v1/subscriptions/:subscriptionId/vehicles/:vin/data',
      url: '/admin/v1/subscriptions/{subscriptionId}/vehicles/{vin}/data',
    },
    { status: 200 },
  ),
];

/**
 * Routes that need no consumer key, subscription or admin token, each with why. A route that is
 * neither here nor in {@link MATRIX} fails the completeness check: give it a row (or a reason).
 * HEAD routes Fastify adds for GET routes follow their GET (the runner sends HEAD too).
 */
export const PUBLIC_ROUTES: { method: string; route: string; prefix?: true; why: string }[] = [
  { method: 'GET', route: '/health', why: 'liveness probe, no data' },
  { method: 'GET', route: '/ready', why: 'readiness probe, no data' },
  { method: 'GET', route: '/catalog/v1/data-items', why: 'the public catalog (api-contract section 3)' },
  { method: 'GET', route: '/catalog/v1/data-items/:technicalName', why: 'the public catalog' },
  { method: 'GET', route: '/catalog/v1/manufacturers', why: 'the public catalog: which items each manufacturer supplies' },
  { method: 'GET', route: '/catalog/v1/manufacturers/:manufacturer', why: 'the public catalog' },
  { method: 'GET', route: '/docs', prefix: true, why: 'Swagger UI, its assets and the OpenAPI document: public by design' },
  { method: 'GET', route: '/metrics', why: 'Prometheus scrape, no personal data; open only while METRICS_TOKEN is unset, kept off the public port (src/routes/metrics, docs/operations.md)' },
  // The consent portal: the browser carries no key. consumerId + subscriptionId are checked to
  // belong together (another consumer's subscription → 400 page, test/consent/portal.test.ts).
  { method: 'GET', route: '/provision', why: 'consent portal page (user-facing HTML)' },
  { method: 'POST', route: '/provision', why: 'consent portal form: bound to its session cookie and CSRF token' },
  { method: 'GET', route: '/callback/:manufacturer', why: "manufacturer's OAuth redirect: bound to state, PKCE and the session" },
  // Withdrawing consent at the portal (test/consent/withdrawal.test.ts): no API key; the user
  // is authenticated by the manufacturer round trip (state bound to the session, PKCE, the VIN
  // in the token response), and only the VIN so proved is ever shown or withdrawn.
  { method: 'GET', route: '/withdraw', why: 'withdrawal start page (user-facing HTML, asks for the VIN)' },
  { method: 'POST', route: '/withdraw', why: "withdrawal start form: session cookie + CSRF token, then the manufacturer's login" },
  { method: 'GET', route: '/withdraw/consents', why: 'consents of the VIN this browser session proved at the manufacturer' },
  { method: 'POST', route: '/withdraw/consents', why: 'withdraw one of them: session cookie + CSRF token + the proved VIN' },
  { method: 'GET', route: '/demo/callback', why: "the demo consumer's redirect target: shows only what its query carries" },
  // The simulated manufacturers' OAuth servers: their own client authentication (src/virtual/oem),
  // one per issuer path a manifest declares, so a new manufacturer needs no row here.
  ...hostedServers().flatMap((prefix) => [
    { method: 'GET', route: `${prefix}/authorize`, why: 'simulated manufacturer login page' },
    { method: 'POST', route: `${prefix}/authorize`, why: 'simulated manufacturer login form' },
    { method: 'POST', route: `${prefix}/token`, why: 'simulated token endpoint: client id and secret, PKCE' },
  ]),
  // The operators' console: its own sign-in with the admin token, a session cookie and a CSRF
  // token on every POST; test/console/session.test.ts refuses every route without them.
  { method: 'GET', route: '/console', prefix: true, why: 'operators console (session cookie from the admin token; test/console)' },
  { method: 'POST', route: '/console', prefix: true, why: 'operators console actions (session cookie + CSRF token; test/console)' },
  // Kestrel's simulated polled API (src/virtual/kestrel): its own client credentials and tokens.
  { method: 'POST', route: '/oem/kestrel/api/oauth/token', why: 'simulated API token endpoint: HTTP Basic client credentials' },
  { method: 'GET', route: '/oem/kestrel/api/v1/vehicles/:vin/signals', why: "simulated API page: the API's own bearer token (test/virtual/kestrel-api.test.ts)" },
  // Manufacturer → service, authenticated by the adapter's HMAC signature, not by a consumer.
  { method: 'POST', route: '/ingest/v1/:manufacturer', why: 'HMAC-signed manufacturer ingest (test/transports/http)' },
  {
    method: 'POST',
    route: '/management/v1/manufacturers/:manufacturer/activation-callback',
    why: 'HMAC-signed manufacturer activation answer (test/management/activation-callback.test.ts)',
  },
];

/** A row's label in test names and failure messages. */
export function rowLabel(row: MatrixRow): string {
  return `${row.method} ${row.route}${row.variant ? ` [${row.variant}]` : ''}`;
}

export function isNotApplicable(cell: Cell): cell is NotApplicable {
  return 'na' in cell;
}
