import type { Store, Subscription } from '../../store/contract.ts';

/**
 * Why a subscription may not receive an item of a VIN right now, or null when it may: the
 * vehicle must be ACTIVATED in the subscription, the item in the subscription's data items,
 * and, under the CONSENT legal basis, an active consent must exist. Checked at fan-out AND
 * again just before each send (a withdrawal takes effect at once): a consent revoked in between
 * stops the push.
 */
export async function whyNotAllowed(
  store: Store,
  subscriptionId: string,
  vin: string,
  item: string,
  known: { subscription?: Subscription | null } = {},
): Promise<string | null> {
  const subscription = known.subscription !== undefined ? known.subscription : await store.subscriptions.get(subscriptionId);
  if (!subscription) return 'subscription not found';
  if (!subscription.dataItems.includes(item)) return 'item no longer in the subscription';
  const vehicle = await store.vehicles.get(subscriptionId, vin);
  if (vehicle?.status !== 'ACTIVATED') return 'vehicle not activated';
  // activeVins, not findActive: the yes/no is all that is needed, without reading the whole process.
  if (subscription.legalBasis === 'CONSENT' && !(await store.consents.activeVins(subscriptionId, [vin])).has(vin)) {
    return 'no active consent';
  }
  return null;
}
