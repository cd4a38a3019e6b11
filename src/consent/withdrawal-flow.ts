import type { ConsentContext } from './context.ts';
import type { WithdrawalStateDeps } from './context.ts';
import { sha256Hex } from '../crypto.ts';
import { manufacturerAuth } from './manufacturer-auth.ts';
import { authorizationUrl, exchangeCode } from './oauth-client.ts';
import { page, PAGE_STATUS, type Outcome } from './outcome.ts';
import type { WithdrawStartView } from './views.ts';
import { newPkce, newSecret, safeEqual } from './secrets.ts';
import { fieldProblem, normaliseField } from './user-fields.ts';
import { fresh, loadSession, saveSession, savePending, peekPending, claimPending, type WithdrawalSession } from './withdrawal-session.ts';

/**
 * Withdrawing consent at the portal (GDPR Art. 7(3): as easy as giving it), the browser part: the
 * start form (VIN), the round trip to the vehicle's manufacturer that proves the user controls
 * that vehicle (the consent flow's OAuth client: state bound to the browser session, PKCE S256,
 * iss check, token timeout), and the callback that records the proof in the session. The list
 * and the withdrawal itself are in withdrawal-consents.ts.
 */

/** A withdrawal's OAuth state starts with this; consent states are base64url and never do. */
export const WITHDRAWAL_STATE_PREFIX = 'w.';

export function isWithdrawalState(query: Record<string, unknown>): boolean {
  return typeof query.state === 'string' && query.state.startsWith(WITHDRAWAL_STATE_PREFIX);
}

export type WithdrawOutcome = Outcome | { kind: 'withdraw-start'; status: number; view: WithdrawStartView };

export const START_AGAIN = 'Please start again at the withdrawal page.';
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The session's withdrawal record, started anew when it has none or it is too old. */
export async function currentSession(services: Pick<ConsentContext, 'clock' | 'config' | 'redis' | 'secrets'>, sessionHash: string): Promise<WithdrawalSession> {
  const existing = await loadSession(services, sessionHash);
  if (existing && fresh(services, existing.at)) return existing;
  const session: WithdrawalSession = { csrf: newSecret().value, at: services.clock.now().toISOString() };
  await saveSession(services, sessionHash, session);
  return session;
}

/** The session's record when the form's CSRF token belongs to it; null otherwise. */
export async function checkedSession(services: WithdrawalStateDeps, form: Record<string, unknown>, sessionHash: string | null): Promise<WithdrawalSession | null> {
  const csrf = str(form.csrf);
  if (sessionHash === null || !csrf || csrf.length > 128) return null;
  const session = await loadSession(services, sessionHash);
  return session && safeEqual(csrf, session.csrf) ? session : null;
}

export const expiredForm = (): Outcome =>
  page(403, 'This form has expired', 'The form does not belong to this browser session, or it is too old. Nothing was changed.', START_AGAIN);

function startView(services: Pick<ConsentContext, 'adapters' | 'config'>, session: WithdrawalSession, vin = '', error: string | null = null): WithdrawStartView {
  const manufacturers = services.adapters.list().map((a) => a.manifest.name);
  return { actionUrl: `${services.config.consentUrl}/withdraw`, csrfToken: session.csrf, vin, error, manufacturers };
}

/** GET /withdraw: the start form. */
export async function showStart(services: Pick<ConsentContext, 'adapters' | 'clock' | 'config' | 'redis' | 'secrets'>, sessionHash: string): Promise<WithdrawOutcome> {
  return { kind: 'withdraw-start', status: 200, view: startView(services, await currentSession(services, sessionHash)) };
}

/** POST /withdraw: the VIN → 303 to its manufacturer's authorization endpoint. */
export async function startProof(
  services: Pick<ConsentContext, 'adapters' | 'clock' | 'config' | 'logger' | 'redis' | 'secrets'>,
  form: Record<string, unknown>,
  sessionHash: string | null,
): Promise<WithdrawOutcome> {
  const session = await checkedSession(services, form, sessionHash);
  if (!session || sessionHash === null || !fresh(services, session.at)) return expiredForm();
  const raw = (str(form.vin) ?? '').slice(0, 300);
  const vin = normaliseField('vin', raw);
  const problem = vin === null ? 'Enter the VIN of your vehicle.' : fieldProblem('vin', vin);
  const adapter = vin !== null && !problem ? services.adapters.forVin(vin) : undefined;
  if (problem || vin === null || !adapter) {
    const error = problem ?? 'No vehicle manufacturer connected to this service makes the vehicle with this VIN.';
    return { kind: 'withdraw-start', status: 400, view: startView(services, session, raw, error) };
  }
  const auth = manufacturerAuth(services.config, adapter);
  const state = `${WITHDRAWAL_STATE_PREFIX}${newSecret().value}`;
  const pkce = newPkce();
  const now = services.clock.now().toISOString();
  await savePending(services, sha256Hex(state), { sessionHash, vin, manufacturer: auth.manufacturerId, codeVerifier: pkce.verifier, at: now });
  services.logger.info({ manufacturer: auth.manufacturerId, vin: services.secrets.pseudonym(vin) }, 'withdrawal: sending the user to the manufacturer');
  return { kind: 'redirect', location: authorizationUrl(auth, { state, codeChallenge: pkce.challenge, scope: [auth.verifyScope], vin }) };
}

const invalidAnswer = (why: string): Outcome => page(400, 'This answer from the manufacturer is not valid', why, 'Nothing was changed.', START_AGAIN);

/**
 * GET /callback/:manufacturer with a withdrawal state. Every failure is a page (there is no
 * consumer to send the user back to) and changes nothing. The round trip is claimed once
 * (GETDEL) only after it proved to belong to this browser, so a stranger who replays the
 * callback URL cannot spend the user's round trip.
 */
export async function handleWithdrawalCallback(
  services: Pick<ConsentContext, 'adapters' | 'clock' | 'config' | 'logger' | 'redis' | 'secrets'>,
  manufacturerId: string,
  query: Record<string, unknown>,
  sessionHash: string | null,
): Promise<Outcome> {
  const state = str(query.state);
  const stateHash = state && state.length <= 512 ? sha256Hex(state) : null;
  const pending = stateHash ? await peekPending(services, stateHash) : null;
  if (!stateHash || !pending) return invalidAnswer('It does not belong to a withdrawal in progress, or it was used already.');
  if (sessionHash === null || !safeEqual(sessionHash, pending.sessionHash)) return invalidAnswer('It does not belong to this browser session.');
  if (!(await claimPending(services, stateHash))) return invalidAnswer('It was used already.');
  if (!fresh(services, pending.at)) return page(409, 'The withdrawal timed out', 'More than 10 minutes passed at the manufacturer. Nothing was changed.', START_AGAIN);
  const adapter = services.adapters.get(pending.manufacturer);
  if (!adapter) return invalidAnswer('The manufacturer is no longer connected to this service.');
  const auth = manufacturerAuth(services.config, adapter);
  // Mix-up defence, as in the consent flow: the callback path and `iss` of the server the user went to.
  const iss = str(query.iss);
  if (manufacturerId !== auth.manufacturerId || (iss !== undefined && iss !== auth.issuer)) {
    return invalidAnswer('It came from another authorization server than the one you were sent to.');
  }
  if (str(query.error) !== undefined) {
    return page(200, 'Nothing was withdrawn', `You did not confirm at ${auth.name} that you control the vehicle.`, START_AGAIN);
  }
  const code = str(query.code);
  if (!code || code.length > 2048) return invalidAnswer(`${auth.name} sent neither a code nor an error.`);
  const result = await exchangeCode(auth, { code, codeVerifier: pending.codeVerifier }, services.config.OEM_TOKEN_TIMEOUT_MS);
  if (!result.ok) return page(PAGE_STATUS[result.error.code], 'The manufacturer could not confirm your vehicle', result.error.description, 'Nothing was changed.', START_AGAIN);
  // Signing in is not enough: the user must have granted the proof-of-control scope (a token
  // answer without `scope` grants what was asked, RFC 6749 section 5.1).
  if (result.grant.scope !== null && !result.grant.scope.includes(auth.verifyScope)) {
    return page(200, 'Nothing was withdrawn', `You did not allow ${auth.name} to confirm that you control the vehicle.`, START_AGAIN);
  }
  if (result.grant.vin !== pending.vin) {
    const why = `${auth.name} confirmed another vehicle than the VIN you entered here.`;
    return page(400, 'The manufacturer confirmed another vehicle', why, 'Nothing was changed.', START_AGAIN);
  }
  const now = services.clock.now().toISOString();
  const session = await currentSession(services, pending.sessionHash);
  await saveSession(services, pending.sessionHash, { csrf: session.csrf, at: now, proof: { vin: pending.vin, manufacturer: auth.manufacturerId, at: now } });
  services.logger.info({ manufacturer: auth.manufacturerId, vin: services.secrets.pseudonym(pending.vin) }, 'withdrawal: control of the vehicle proved');
  return { kind: 'redirect', location: `${services.config.consentUrl}/withdraw/consents` };
}
