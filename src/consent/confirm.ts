import { authenticateApiKey } from '../auth/api-keys.ts';
import { sha256Hex } from '../crypto.ts';
import type { ConsentContext } from './context.ts';
import type { ConsentRecord, ConsentState } from '../store/contract.ts';
import { isStale, notBefore } from './deadlines.ts';
import { applyEvent } from './process.ts';
import { s256, safeEqual } from './secrets.ts';

/** Spec 2.4: the consent confirmation record. */
export interface ConfirmationBody {
  consentId: string;
  vin: string;
  subscriptionId: string;
  confirmedAt: string;
  consentGivenAt: string;
}

export type ConfirmResult = { status: 200; body: ConfirmationBody } | { status: 400 | 401 | 404 | 409; reasonText: string };

const CODE_FORMAT = /^[A-Za-z0-9_-]{20,200}$/;

/** Why a process in this state cannot be confirmed (spec 7.1, 409 rows). */
const WRONG_STATE: Partial<Record<ConsentState, string>> = {
  CONFIRMED: 'Consent already confirmed: a confirmation code can be used only once.',
  STARTED: 'Consent not given to the manufacturer: the user has not approved yet.',
  AWAITING_MANUFACTURER: 'Consent process not in the required state: the manufacturer has not yet confirmed the consent for the VIN.',
  EXCHANGING_TOKEN: 'Consent process not in the required state: the manufacturer has not yet confirmed the consent for the VIN.',
  FAILED: 'Consent not given to the manufacturer: the consent process failed.',
  REJECTED: 'Consent not given: the user rejected the consent request.',
  TIMED_OUT: 'Consent process timed out: the last state change was over 10 minutes ago.',
  REVOKED: 'Consent process not in the required state: the consent was revoked.',
  SUPERSEDED: 'Consent process not in the required state: a newer consent replaced this one.',
};

/**
 * POST /api/consent/provisioning/confirmation/:code (spec 4.3, 7.1). Order matters: the key
 * is checked first and a key of another partner is refused before anything changes, so the
 * code stays usable for its owner (a code is bound to its consumer, who authenticates first). Redemption is one conditional update
 * (ACTIVE → CONFIRMED, for this code and consumer, within the time limits), so of many
 * simultaneous calls exactly one succeeds.
 */
export async function confirmConsent(
  services: Pick<ConsentContext, 'clock' | 'config' | 'logger' | 'store'>,
  code: string,
  apiKey: string | undefined,
  codeVerifier: string | undefined,
): Promise<ConfirmResult> {
  const auth = apiKey ? await authenticateApiKey(services.store, apiKey) : null;
  if (!auth) return { status: 401, reasonText: 'Unauthorized request, invalid API key.' };
  const codeHash = sha256Hex(code);
  const record = CODE_FORMAT.test(code) ? await services.store.consents.findByCodeHash(codeHash) : null;
  if (!record) return { status: 404, reasonText: 'No consent process exists for this confirmation code.' };
  if (record.consumerId !== auth.consumer.consumerId) {
    return { status: 401, reasonText: 'Unauthorized request, the API key does not belong to the partner of this consent process.' };
  }
  const pkceProblem = checkVerifier(record, codeVerifier);
  if (pkceProblem) return { status: 400, reasonText: pkceProblem };

  const now = services.clock.now();
  const confirmed = await applyEvent(services.store, { codeHash, consumerId: auth.consumer.consumerId }, 'CONFIRM', {
    at: now,
    notBefore: notBefore(now, services.config.CONSENT_CODE_TTL_S),
    set: { confirmedAt: now.toISOString() },
  });
  if (confirmed && confirmed.vin !== null && confirmed.consentGivenAt !== null && confirmed.confirmedAt !== null) {
    return {
      status: 200,
      body: {
        consentId: confirmed.consentId,
        vin: confirmed.vin,
        subscriptionId: confirmed.subscriptionId,
        confirmedAt: confirmed.confirmedAt,
        consentGivenAt: confirmed.consentGivenAt,
      },
    };
  }
  return conflict(services, (await services.store.consents.get(record.consentId)) ?? record, now);
}

async function conflict(services: Pick<ConsentContext, 'config' | 'logger' | 'store'>, record: ConsentRecord, now: Date): Promise<ConfirmResult> {
  if (record.state === 'CONFIRMED') {
    // A used code presented again is treated as an attack signal: 409 and an
    // audit record. The consent stays active: only the partner's own key gets this far, so a
    // replay is far more likely a client retry than a theft.
    await services.store.audit.record({
      type: 'consent.code_replay',
      at: now.toISOString(),
      subject: record.consentId,
      details: { consumerId: record.consumerId, subscriptionId: record.subscriptionId },
    });
    services.logger.warn({ consentId: record.consentId }, 'confirmation code replayed');
  } else if (record.state === 'ACTIVE' && isStale(record, now, services.config.CONSENT_CODE_TTL_S)) {
    return {
      status: 409,
      reasonText: 'Consent process timed out: the confirmation code is valid for 10 minutes after consent was given and the last state change was over 10 minutes ago.',
    };
  }
  return { status: 409, reasonText: WRONG_STATE[record.state] ?? `Consent process not in the required state (${record.state}).` };
}

/** The consumer's optional PKCE, with downgrade protection: a stolen code is useless without the verifier. */
function checkVerifier(record: ConsentRecord, verifier: string | undefined): string | null {
  if (record.consumerCodeChallenge === null) {
    return verifier === undefined ? null : 'Bad request, code_verifier given but the consent process was started without code_challenge.';
  }
  if (verifier === undefined) return 'Bad request, code_verifier is required for this consent process.';
  return safeEqual(s256(verifier), record.consumerCodeChallenge) ? null : 'Bad request, code_verifier does not match the code_challenge.';
}
