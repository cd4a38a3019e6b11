import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../../src/crypto.ts';
import type { Services } from '../../src/services.ts';
import type { ConsentRecord } from '../../src/store/contract.ts';

/**
 * An ACTIVE consent record as the consent flow leaves it after the manufacturer step, for tests
 * that write it straight to the store (the flow itself is tested over HTTP in test/consent).
 * The defaults carry no personal data and no pending secret; `over` sets what a test cares about.
 */
export function activeConsentRecord(
  at: string,
  over: Pick<ConsentRecord, 'consumerId' | 'subscriptionId' | 'vin'> & Partial<ConsentRecord>,
): ConsentRecord {
  return {
    consentId: randomUUID(),
    state: 'ACTIVE',
    stateChangedAt: at,
    createdAt: at,
    manufacturer: 'virtual',
    dataItems: [],
    redirectUrl: null,
    consumerState: null,
    firstName: null,
    lastName: null,
    email: null,
    consentGivenAt: at,
    activatedAt: at,
    confirmedAt: null,
    errorCode: null,
    grantedItems: [],
    history: [
      { state: 'STARTED', at },
      { state: 'ACTIVE', at },
    ],
    sessionHash: sha256Hex(randomUUID()),
    csrfHash: sha256Hex(randomUUID()),
    oauthStateHash: null,
    pkceVerifierSealed: null,
    codeHash: null,
    consumerCodeChallenge: null,
    ...over,
  };
}

/** Revokes a consent the way the consent API does (one conditional transition). */
export async function revokeConsent(services: Services, consentId: string): Promise<void> {
  const at = services.clock.now().toISOString();
  const done = await services.store.consents.transition({ consentId }, { from: ['ACTIVE', 'CONFIRMED'], to: 'REVOKED', at });
  if (!done) throw new Error('consent was not active');
}
