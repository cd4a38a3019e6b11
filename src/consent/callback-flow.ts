import type { ConsentContext } from './context.ts';
import type { ConsentRecord } from '../store/contract.ts';
import { sha256Hex } from '../crypto.ts';
import { notBefore } from './deadlines.ts';
import { flowError, type FlowError } from './flow-errors.ts';
import { manufacturerAuth, type ManufacturerAuth } from './manufacturer-auth.ts';
import { exchangeCode, type Grant } from './oauth-client.ts';
import { failure, page, type Outcome } from './outcome.ts';
import { wrongState } from './portal-flow.ts';
import { applyEvent, grantConsent } from './process.ts';
import { requestedItems } from './scope.ts';
import { successRedirect } from './redirects.ts';
import { TRANSITIONS } from './states.ts';
import { newSecret, safeEqual } from './secrets.ts';

const one = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * GET /callback/:manufacturer: the manufacturer sends the user back (spec 4.1 step 4).
 * Security-relevant mismatches that tell us nothing trustworthy about the process (unknown
 * state, another browser session) are an error page without a redirect (a forged callback must lead nowhere); every
 * other failure goes back to the consumer with a spec 7.2 code.
 */
export async function handleCallback(
  services: Pick<ConsentContext, 'adapters' | 'clock' | 'config' | 'logger' | 'secrets' | 'store'>,
  manufacturerId: string,
  query: Record<string, unknown>,
  sessionHash: string | null,
): Promise<Outcome> {
  const adapter = services.adapters.get(manufacturerId);
  if (!adapter) return page(404, 'Unknown manufacturer', 'This address does not belong to a manufacturer connected to this service.');
  const state = one(query.state);
  const record = state && state.length <= 512 ? await services.store.consents.findByOAuthStateHash(sha256Hex(state)) : null;
  if (!record) {
    return page(400, 'This answer from the manufacturer is not valid', 'It does not belong to a consent process. Please start again from the application that sent you here.');
  }
  if (sessionHash === null || !safeEqual(sessionHash, record.sessionHash)) {
    return page(400, 'This answer from the manufacturer is not valid', 'It does not belong to this browser session. Please start again from the application that sent you here.');
  }
  // A replayed or out-of-order callback finds the process claimed already: conflict.
  if (record.state !== 'AWAITING_MANUFACTURER') return wrongState(services, record, 'an answer from the manufacturer');
  const process = record.manufacturer ? services.adapters.get(record.manufacturer) : undefined;
  if (!process) return fail(services, record, flowError('invalid_request', 'The manufacturer of this consent process is no longer connected.'));
  const auth = manufacturerAuth(services.config, process);

  // Mix-up defence (several manufacturers' servers are used): the answer must arrive on the callback path of the server
  // the process went to, and carry that server's issuer when it names one (RFC 9207).
  const iss = one(query.iss);
  if (manufacturerId !== auth.manufacturerId || (iss !== undefined && iss !== auth.issuer)) {
    return fail(services, record, flowError('invalid_request', 'The answer came from another authorization server than the one the user was sent to.'));
  }
  const error = one(query.error);
  if (error !== undefined) return fail(services, record, fromAuthorizationError(auth, error));
  const code = one(query.code);
  if (!code || code.length > 2048) return fail(services, record, flowError('invalid_request', `${auth.name} sent neither a code nor an error.`));

  const now = services.clock.now();
  const claimed = await applyEvent(services.store, { consentId: record.consentId }, 'CALLBACK', {
    at: now,
    notBefore: notBefore(now, services.config.CONSENT_CODE_TTL_S),
  });
  if (!claimed) return wrongState(services, (await services.store.consents.get(record.consentId)) ?? record, 'an answer from the manufacturer');
  if (!claimed.pkceVerifierSealed) return fail(services, claimed, flowError('conflict', 'The consent process has no PKCE verifier.'));

  const result = await exchangeCode(auth, { code, codeVerifier: services.secrets.decrypt(claimed.pkceVerifierSealed) }, services.config.OEM_TOKEN_TIMEOUT_MS);
  if (!result.ok) return fail(services, claimed, result.error);
  const problem = checkGrant(auth, claimed, requestedItems(claimed.dataItems, process), result.grant);
  if (problem) return fail(services, claimed, problem);
  return activate(services, claimed, result.grant.scope ?? requestedItems(claimed.dataItems, process));
}

function fromAuthorizationError(auth: ManufacturerAuth, error: string): FlowError {
  if (error === 'access_denied') return flowError('access_denied', `The user declined the consent at ${auth.name}.`);
  if (error === 'temporarily_unavailable' || error === 'server_error') {
    return flowError('connection_error', `${auth.name}'s authorization server failed (${error}).`);
  }
  return flowError('invalid_request', `${auth.name} refused the authorization request.`);
}

/** Scope narrower than the subscription's items → scope_mismatch; another VIN → invalid_request. */
function checkGrant(auth: ManufacturerAuth, record: ConsentRecord, required: string[], grant: Grant): FlowError | null {
  const granted = new Set(grant.scope ?? required);
  const missing = required.filter((i) => !granted.has(i));
  if (missing.length > 0) {
    return flowError('scope_mismatch', `The consent given at ${auth.name} does not cover all required data items (missing: ${missing.join(', ')}).`);
  }
  if (grant.vin === null) return flowError('invalid_request', `${auth.name} did not say which vehicle the consent is for.`);
  if (grant.vin !== record.vin) {
    return flowError('invalid_request', `The VIN consented at ${auth.name} differs from the VIN given to this service.`);
  }
  return null;
}

async function fail(services: Pick<ConsentContext, 'clock' | 'config' | 'logger' | 'store'>, record: ConsentRecord, error: FlowError): Promise<Outcome> {
  const failed = await applyEvent(services.store, { consentId: record.consentId }, 'FAIL', {
    at: services.clock.now(),
    errorCode: error.code,
    set: { pkceVerifierSealed: null },
  });
  if (!failed) return wrongState(services, (await services.store.consents.get(record.consentId)) ?? record, 'a failure');
  services.logger.info({ consentId: record.consentId, error: error.code }, 'consent process failed at the manufacturer step');
  return failure(failed, error);
}

async function activate(services: Pick<ConsentContext, 'clock' | 'config' | 'logger' | 'store'>, record: ConsentRecord, granted: string[]): Promise<Outcome> {
  const now = services.clock.now();
  const code = newSecret();
  const active = await grantConsent(services.store, record.consentId, {
    at: now,
    set: { codeHash: code.hash, activatedAt: now.toISOString(), grantedItems: granted, pkceVerifierSealed: null },
  });
  if (!active) return wrongState(services, (await services.store.consents.get(record.consentId)) ?? record, 'activation');
  services.logger.info({ consentId: active.consentId, manufacturer: active.manufacturer }, 'consent active');
  if (active.redirectUrl !== null) return { kind: 'redirect', location: successRedirect(active, code.value), record: active };
  return {
    kind: 'page',
    status: 200,
    title: 'Thank you: your consent is active',
    paragraphs: [`Your vehicle's data can now be shared as you agreed. Consent reference: ${active.consentId}.`, 'You can close this window.'],
    record: active,
  };
}
