import { randomUUID } from 'node:crypto';
import type { ConsentContext } from './context.ts';
import type { ConsentDeps } from './context.ts';
import type { ConsentRecord } from '../store/contract.ts';
import { notBefore, shouldExpire } from './deadlines.ts';
import { flowError } from './flow-errors.ts';
import { manufacturerAuth } from './manufacturer-auth.ts';
import { authorizationUrl } from './oauth-client.ts';
import { failure, page, type Outcome } from './outcome.ts';
import type { PortalView } from './views.ts';
import { openEntry, sealEntry, storeEntry } from './portal-entry.ts';
import type { PortalRequest } from './portal-request.ts';
import { applyEvent } from './process.ts';
import { requestedItems } from './scope.ts';
import { newPkce, newSecret, oauthStateFor, s256, safeEqual } from './secrets.ts';
import { FIELD_LABELS, fieldProblem, NO_MANUFACTURER, normaliseField, USER_FIELDS, type UserData, type UserField } from './user-fields.ts';
import { sha256Hex } from '../crypto.ts';

export const SERVICE_NAME = 'Connected Vehicle Data Service';

/**
 * GET /provision: the page, with the STARTED process bound to the browser session sealed into
 * its form. Nothing is stored until the user decides (src/consent/portal-entry.ts).
 */
export function showPortal(services: Pick<ConsentContext, 'adapters' | 'catalog' | 'clock' | 'config' | 'secrets'>, req: PortalRequest, sessionHash: string): Outcome {
  const now = services.clock.now().toISOString();
  const csrf = newSecret();
  const record: ConsentRecord = {
    consentId: randomUUID(),
    consumerId: req.consumer.consumerId,
    subscriptionId: req.subscription.subscriptionId,
    vin: req.user.vin,
    state: 'STARTED',
    stateChangedAt: now,
    createdAt: now,
    manufacturer: req.manufacturer?.manifest.id ?? null,
    dataItems: [...req.subscription.dataItems],
    redirectUrl: req.redirectUrl,
    consumerState: req.consumerState,
    firstName: req.user.firstName,
    lastName: req.user.lastName,
    email: req.user.email,
    consentGivenAt: null,
    activatedAt: null,
    confirmedAt: null,
    errorCode: null,
    grantedItems: null,
    history: [{ state: 'STARTED', at: now }],
    sessionHash,
    csrfHash: csrf.hash,
    oauthStateHash: null,
    pkceVerifierSealed: null,
    codeHash: null,
    consumerCodeChallenge: req.consumerCodeChallenge,
  };
  const view = portalView(services, record, req.consumer.name, csrf.value, sealEntry(services, record), {}, {});
  return { kind: 'portal', status: 200, view, record };
}

/** The portal page of a STARTED process; `entry` is its sealed form while it is not stored. */
export function portalView(
  services: Pick<ConsentContext, 'adapters' | 'catalog' | 'config'>,
  record: ConsentRecord,
  consumerName: string,
  csrfToken: string,
  entry: string | null,
  entered: Partial<Record<UserField, string>>,
  errors: PortalView['errors'],
): PortalView {
  const manufacturer = record.manufacturer ? services.adapters.get(record.manufacturer) : undefined;
  const items = manufacturer ? requestedItems(record.dataItems, manufacturer) : record.dataItems;
  return {
    actionUrl: `${services.config.consentUrl}/provision`,
    consentId: record.consentId,
    csrfToken,
    entry,
    serviceName: SERVICE_NAME,
    consumerName,
    subscriptionId: record.subscriptionId,
    manufacturerName: manufacturer?.manifest.name ?? null,
    items: items.map((t) => {
      const e = services.catalog.get(t);
      return { technicalName: t, name: e?.name ?? t, description: e?.description ?? '' };
    }),
    given: { vin: record.vin, firstName: record.firstName, lastName: record.lastName, email: record.email },
    entered,
    errors,
    returnsToConsumer: record.redirectUrl !== null,
    withdrawUrl: `${services.config.consentUrl}/withdraw`,
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The answer when a process is no longer (or not yet) in the state a step needs. */
export async function wrongState(services: ConsentDeps, record: ConsentRecord, what: string): Promise<Outcome> {
  const now = services.clock.now();
  if (shouldExpire(record, now, services.config.CONSENT_CODE_TTL_S)) {
    const expired = await applyEvent(services.store, { consentId: record.consentId }, 'EXPIRE', { at: now });
    return failure(expired ?? record, flowError('conflict', 'The consent process timed out: more than 10 minutes passed without progress.'));
  }
  return failure(record, flowError('conflict', `The consent process is in the wrong state for ${what} (${record.state}).`));
}

/**
 * POST /provision: the user's decision, with the CSRF token bound to the browser session. The
 * process is the stored one, or, on the first decision, the one sealed into the form at the
 * visit (`entry`), stored now, with the decision applied through the transition table.
 */
export async function decide(
  services: Pick<ConsentContext, 'adapters' | 'catalog' | 'clock' | 'config' | 'logger' | 'secrets' | 'store'>,
  form: Record<string, unknown>,
  sessionHash: string | null,
): Promise<Outcome> {
  const consentId = str(form.consentId);
  const csrf = str(form.csrf);
  const decision = str(form.decision);
  const stored = consentId && consentId.length <= 64 ? await services.store.consents.get(consentId) : null;
  const record = stored ?? (consentId ? openEntry(services, form.entry, consentId) : null);
  if (!record) return unknownRequest();
  if (sessionHash === null || !safeEqual(sessionHash, record.sessionHash) || !csrf || !safeEqual(sha256Hex(csrf), record.csrfHash)) {
    return page(403, 'This form has expired', 'The form does not belong to this browser session. Please start again from the application that sent you here.');
  }
  const now = services.clock.now();
  if (record.state === 'AWAITING_MANUFACTURER' && decision === 'approve') return approveAgain(services, record, now);
  // A visit older than 10 minutes: the usual timed-out conflict, and still nothing stored.
  if (record.state !== 'STARTED' || (!stored && shouldExpire(record, now, services.config.CONSENT_CODE_TTL_S))) {
    return wrongState(services, record, 'a decision at the portal');
  }

  if (decision === 'reject') {
    const current = stored ?? (await storeEntry(services, record));
    if (!current) return unknownRequest();
    const rejected = await applyEvent(services.store, { consentId: record.consentId }, 'REJECT', { at: now });
    if (!rejected) return wrongState(services, (await services.store.consents.get(record.consentId)) ?? record, 'a rejection');
    return failure(rejected, flowError('rejected', 'The user rejected the consent request at the portal.'));
  }
  if (decision !== 'approve') return page(400, 'Unknown decision', 'Please use the Approve or Reject button.');
  return approve(services, record, form, csrf, stored ? null : str(form.entry)!, now);
}

function unknownRequest(): Outcome {
  return page(400, 'This consent request is unknown', 'Please start again from the application that sent you here.');
}

async function approve(
  services: Pick<ConsentContext, 'adapters' | 'catalog' | 'clock' | 'config' | 'logger' | 'secrets' | 'store'>,
  record: ConsentRecord,
  form: Record<string, unknown>,
  csrf: string,
  entry: string | null,
  now: Date,
): Promise<Outcome> {
  const user: UserData = { vin: record.vin, firstName: record.firstName, lastName: record.lastName, email: record.email };
  const entered: Partial<Record<UserField, string>> = {};
  const errors: PortalView['errors'] = {};
  for (const f of USER_FIELDS) {
    if (user[f] !== null) continue;
    const raw = str(form[f]) ?? '';
    entered[f] = raw.slice(0, 300);
    const value = normaliseField(f, raw);
    const problem = value === null ? 'This field is required.' : fieldProblem(f, value);
    if (problem) errors[f] = problem;
    else user[f] = value;
  }
  const adapter = user.vin !== null && !errors.vin ? services.adapters.forVin(user.vin) : undefined;
  if (user.vin !== null && !errors.vin && !adapter) {
    errors.vin = NO_MANUFACTURER;
  } else if (adapter && requestedItems(record.dataItems, adapter).length === 0) {
    errors.vin = `${adapter.manifest.name} supplies none of the data items this consent is for.`;
  }
  if (Object.keys(errors).length > 0 || !adapter || user.vin === null) {
    if (record.redirectUrl !== null) {
      // The user acted: the process is stored now (first decision), so that it can fail.
      if (entry !== null && !(await storeEntry(services, record))) return unknownRequest();
      return detailsRefused(services, record, errors, now);
    }
    const consumer = await services.store.consumers.get(record.consumerId);
    errors.form = 'Please correct the details below.';
    // Not stored yet either: the same sealed entry goes back into the form.
    const view = portalView(services, record, consumer?.name ?? 'The data consumer', csrf, entry, entered, errors);
    return { kind: 'portal', status: 400, view, record };
  }
  if (entry !== null && !(await storeEntry(services, record))) return unknownRequest();

  const auth = manufacturerAuth(services.config, adapter);
  const pkce = newPkce();
  const state = oauthStateFor(pkce.verifier);
  const approved = await applyEvent(services.store, { consentId: record.consentId }, 'APPROVE', {
    at: now,
    notBefore: notBefore(now, services.config.CONSENT_CODE_TTL_S),
    set: {
      vin: user.vin,
      firstName: user.firstName,
      lastName: user.lastName,
      email: user.email,
      manufacturer: adapter.manifest.id,
      // Consent given to the service is stored at once (spec 3); it is not active yet.
      consentGivenAt: now.toISOString(),
      oauthStateHash: state.hash,
      pkceVerifierSealed: services.secrets.encrypt(pkce.verifier),
    },
  });
  if (!approved) return wrongState(services, (await services.store.consents.get(record.consentId)) ?? record, 'an approval');
  services.logger.info(
    { consentId: approved.consentId, manufacturer: auth.manufacturerId, vin: services.secrets.pseudonym(user.vin) },
    'consent approved at the portal; sending the user to the manufacturer',
  );
  const scope = requestedItems(approved.dataItems, adapter);
  const location = authorizationUrl(auth, { state: state.value, codeChallenge: pkce.challenge, scope, vin: user.vin });
  return { kind: 'redirect', location, record: approved };
}

/**
 * Approve with details that are missing or not valid, when the consumer gave a redirectUrl: the
 * step fails (FAILED, invalid_request) and the consumer is told by the redirect (spec 7.2 note
 * 2), naming each field. Without a redirectUrl the portal shows the form again instead, for the
 * user to correct (approve above). The form's own checks (required fields, VIN pattern, e-mail
 * type) keep most typing errors in the browser.
 */
async function detailsRefused(services: ConsentDeps, record: ConsentRecord, errors: PortalView['errors'], now: Date): Promise<Outcome> {
  const problems = USER_FIELDS.filter((f) => errors[f]).map((f) => `${FIELD_LABELS[f]}: ${errors[f]}`);
  const error = flowError('invalid_request', `The details given at the portal are not valid. ${problems.join(' ')}`);
  const failed = await applyEvent(services.store, { consentId: record.consentId }, 'FAIL', { at: now, errorCode: error.code });
  if (!failed) return wrongState(services, (await services.store.consents.get(record.consentId)) ?? record, 'an approval');
  return failure(failed, error);
}

/**
 * The same browser posts Approve again while the user is on the way to the manufacturer (a
 * double click, or Back and Approve): it is sent to the same authorization URL again, rebuilt
 * from the stored approval, and nothing changes. Past the 10-minute limit it is the usual
 * timed-out conflict.
 */
async function approveAgain(services: Pick<ConsentContext, 'adapters' | 'clock' | 'config' | 'secrets' | 'store'>, record: ConsentRecord, now: Date): Promise<Outcome> {
  const adapter = record.manufacturer ? services.adapters.get(record.manufacturer) : undefined;
  if (shouldExpire(record, now, services.config.CONSENT_CODE_TTL_S) || !adapter || !record.vin || !record.pkceVerifierSealed) {
    return wrongState(services, record, 'an approval');
  }
  const verifier = services.secrets.decrypt(record.pkceVerifierSealed);
  const scope = requestedItems(record.dataItems, adapter);
  const location = authorizationUrl(manufacturerAuth(services.config, adapter), {
    state: oauthStateFor(verifier).value,
    codeChallenge: s256(verifier),
    scope,
    vin: record.vin,
  });
  return { kind: 'redirect', location, record };
}
