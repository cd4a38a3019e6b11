import type { ConsentContext } from './context.ts';
import { revokeConsent } from './consumer-api.ts';
import { page, type Outcome } from './outcome.ts';
import type { WithdrawListView, WithdrawableConsent } from './views.ts';
import { isActive } from './states.ts';
import { checkedSession, expiredForm, START_AGAIN } from './withdrawal-flow.ts';
import { fresh, loadSession, saveSession, type WithdrawalSession } from './withdrawal-session.ts';

/**
 * Withdrawing consent at the portal, after the manufacturer round trip (withdrawal-flow.ts):
 * the list of the consents that let a consumer read the proved VIN, and the withdrawal of one.
 * Only the VIN this browser session proved is ever shown or withdrawn.
 */

export type ListOutcome = Outcome | { kind: 'withdraw-list'; status: number; view: WithdrawListView };

const noProof = (): Outcome =>
  page(403, 'Please confirm your vehicle first', 'This page shows consents only after you confirmed at the manufacturer that you control the vehicle, for 10 minutes.', START_AGAIN);

/** The session's proved VIN while the proof is fresh. */
function provedVin(services: Pick<ConsentContext, 'clock' | 'config'>, session: WithdrawalSession | null): string | null {
  return session?.proof && fresh(services, session.proof.at) ? session.proof.vin : null;
}

/**
 * The VIN's active consents, in every subscription: the ones that let a consumer read its data
 * now or once the vehicle is activated there.
 */
async function consentsOf(services: Pick<ConsentContext, 'catalog' | 'store'>, vin: string): Promise<WithdrawableConsent[]> {
  const { store, catalog } = services;
  const active = (await store.consents.listByVin(vin)).filter((c) => isActive(c.state));
  return Promise.all(
    active.map(async (consent) => ({
      consentId: consent.consentId,
      consumerName: (await store.consumers.get(consent.consumerId))?.name ?? 'A data consumer',
      items: (consent.grantedItems ?? consent.dataItems).map((i) => catalog.get(i)?.name ?? i),
      since: consent.activatedAt ?? consent.consentGivenAt ?? consent.createdAt,
    })),
  );
}

/** GET /withdraw/consents. */
export async function showConsents(
  services: Pick<ConsentContext, 'catalog' | 'clock' | 'config' | 'redis' | 'secrets' | 'store'>,
  sessionHash: string | null,
): Promise<ListOutcome> {
  const session = sessionHash === null ? null : await loadSession(services, sessionHash);
  const vin = provedVin(services, session);
  if (!session || !vin) return noProof();
  const view: WithdrawListView = {
    actionUrl: `${services.config.consentUrl}/withdraw/consents`,
    csrfToken: session.csrf,
    vin,
    consents: await consentsOf(services, vin),
    withdrawn: session.withdrawn?.consumerName ?? null,
  };
  // The confirmation of a withdrawal is shown once.
  if (session.withdrawn && sessionHash !== null) await saveSession(services, sessionHash, { csrf: session.csrf, at: session.at, proof: session.proof! });
  return { kind: 'withdraw-list', status: 200, view };
}

/**
 * POST /withdraw/consents: withdraws one consent of the proved VIN through the consumer API's
 * revocation (same state change, same at-once effect on delivery and push), marked as the data
 * subject's, which also queues the consumer's `consent.revoked` notice. 303 to the list.
 */
export async function withdraw(
  services: Pick<ConsentContext, 'clock' | 'config' | 'logger' | 'noticeOfWithdrawal' | 'redis' | 'secrets' | 'store'>,
  form: Record<string, unknown>,
  sessionHash: string | null,
): Promise<Outcome> {
  const session = await checkedSession(services, form, sessionHash);
  if (!session || sessionHash === null) return expiredForm();
  const vin = provedVin(services, session);
  if (!vin) return noProof();
  const consentId = typeof form.consentId === 'string' && form.consentId.length <= 64 ? form.consentId : '';
  const record = consentId ? await services.store.consents.get(consentId) : null;
  // Another vehicle's consent is answered exactly like one that does not exist.
  if (!record || record.vin !== vin || !isActive(record.state)) {
    return page(404, 'This consent cannot be withdrawn here', 'It is not an active consent for the vehicle you confirmed. Nothing was changed.');
  }
  await revokeConsent(services, record.subscriptionId, record.consentId, 'DATA_SUBJECT');
  const consumer = await services.store.consumers.get(record.consumerId);
  await saveSession(services, sessionHash, { ...session, withdrawn: { consumerName: consumer?.name ?? 'A data consumer', consentId: record.consentId } });
  services.logger.info({ consentId: record.consentId, vin: services.secrets.pseudonym(vin) }, 'consent withdrawn by the data subject at the portal');
  return { kind: 'redirect', location: `${services.config.consentUrl}/withdraw/consents` };
}
