import { s256, newSecret } from '../../src/consent/secrets.ts';
import type { ConsentRecord } from '../../src/store/contract.ts';
import type { TestServices } from '../helpers/services.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { activeConsentRecord } from '../helpers/consents.ts';

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
  const record = activeConsentRecord(now, {
    consumerId: c.consumerId,
    subscriptionId: c.subscriptionId,
    vin: 'V1RTUALV1N0000001',
    dataItems: ['crashseverity'],
    grantedItems: ['crashseverity'],
    redirectUrl: 'https://app.example.com/cb',
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    history: [
      { state: 'STARTED', at: now },
      { state: 'AWAITING_MANUFACTURER', at: now },
      { state: 'EXCHANGING_TOKEN', at: now },
      { state: 'ACTIVE', at: now },
    ],
    oauthStateHash: newSecret().hash,
    codeHash: code.hash,
    ...over,
  });
  await t.services.store.consents.create(record);
  return { code: code.value, record };
}

export { s256 };
