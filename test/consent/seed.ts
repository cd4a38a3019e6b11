import { randomUUID } from 'node:crypto';
import { s256, newSecret } from '../../src/consent/secrets.ts';
import type { ConsentRecord } from '../../src/store/contract.ts';
import type { TestServices } from '../helpers/services.ts';
import type { TestConsumer } from '../helpers/app.ts';

/**
 * A process as the flow leaves it after the manufacturer step, written straight to the store,
 * for tests of the confirmation call and the consents API (the flow itself is tested over
 * HTTP in flow*.test.ts). Returns the clear confirmation code.
 */
export async function seedProcess(
  t: TestServices,
  c: TestConsumer,
  over: Partial<ConsentRecord> = {},
): Promise<{ code: string; record: ConsentRecord }> {
  const now = t.services.clock.now().toISOString();
  const code = newSecret();
  const record: ConsentRecord = {
    consentId: randomUUID(),
    consumerId: c.consumerId,
    subscriptionId: c.subscriptionId,
    vin: 'V1RTUALV1N0000001',
    state: 'ACTIVE',
    stateChangedAt: now,
    createdAt: now,
    manufacturer: 'virtual',
    dataItems: ['crashseverity'],
    redirectUrl: 'https://app.example.com/cb',
    consumerState: null,
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    consentGivenAt: now,
    activatedAt: now,
    confirmedAt: null,
    errorCode: null,
    grantedItems: ['crashseverity'],
    history: [
      { state: 'STARTED', at: now },
      { state: 'AWAITING_MANUFACTURER', at: now },
      { state: 'EXCHANGING_TOKEN', at: now },
      { state: 'ACTIVE', at: now },
    ],
    sessionHash: newSecret().hash,
    csrfHash: newSecret().hash,
    oauthStateHash: newSecret().hash,
    pkceVerifierSealed: null,
    codeHash: code.hash,
    consumerCodeChallenge: null,
    ...over,
  };
  await t.services.store.consents.create(record);
  return { code: code.value, record };
}

export { s256 };
