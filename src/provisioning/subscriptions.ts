import { randomUUID } from 'node:crypto';
import { apiErrors } from '../errors.ts';
import { LEGAL_BASES, type LegalBasis, type Subscription } from '../store/contract.ts';
import type { ProvisioningDeps } from './deps.ts';
import { checkRedirectUrls } from './redirect-urls.ts';

export interface CreateSubscriptionInput {
  consumerId: string;
  dataItems: string[];
  allowedRedirectUrls?: string[];
  /** Default CONSENT: data flows only with an active user consent per vehicle. */
  legalBasis?: LegalBasis;
}

function checkDataItems(deps: Pick<ProvisioningDeps, 'catalog'>, items: unknown): string[] {
  if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) {
    throw apiErrors.badRequest('dataItems must be an array of technical names.');
  }
  if (items.length === 0) throw apiErrors.emptyList('DataItems');
  const unique = [...new Set(items as string[])];
  const unknown = unique.filter((i) => deps.catalog.get(i) === undefined);
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 20).map((i) => i.slice(0, 100));
    throw apiErrors.badRequest(`unknown data items: ${shown.join(', ')}${unknown.length > 20 ? ', …' : ''}.`);
  }
  return unique;
}

function checkLegalBasis(basis: unknown): LegalBasis {
  if (basis === undefined) return 'CONSENT';
  if (typeof basis !== 'string' || !(LEGAL_BASES as readonly string[]).includes(basis)) {
    throw apiErrors.badRequest(`legalBasis must be one of ${LEGAL_BASES.join(', ')}.`);
  }
  return basis as LegalBasis;
}

/**
 * A new subscription of an existing consumer. Everything is checked before anything is
 * written: an unknown consumer or data item, a bad redirect URL or legal basis is a 400 that
 * stores nothing. (An unknown consumer is a 400, not a 404: the consumer is a field of the
 * body, not the resource addressed by the URL.)
 */
export async function createSubscription(deps: ProvisioningDeps, input: CreateSubscriptionInput): Promise<Subscription> {
  if (typeof input.consumerId !== 'string' || input.consumerId === '') throw apiErrors.badRequest('consumerId is required.');
  const dataItems = checkDataItems(deps, input.dataItems);
  const allowedRedirectUrls = checkRedirectUrls(input.allowedRedirectUrls);
  const legalBasis = checkLegalBasis(input.legalBasis);
  const consumer = input.consumerId.length <= 64 ? await deps.store.consumers.get(input.consumerId) : null;
  if (!consumer) throw apiErrors.badRequest('consumer not found.');
  const subscription: Subscription = {
    subscriptionId: randomUUID(),
    consumerId: consumer.consumerId,
    dataItems,
    allowedRedirectUrls,
    legalBasis,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.store.subscriptions.create(subscription);
  return subscription;
}

export async function getSubscription(deps: Pick<ProvisioningDeps, 'store'>, subscriptionId: string): Promise<Subscription> {
  const s = subscriptionId.length <= 64 ? await deps.store.subscriptions.get(subscriptionId) : null;
  if (!s) throw apiErrors.notFound('Subscription not found.');
  return s;
}

/** All subscriptions, or one consumer's. */
export async function listSubscriptions(
  deps: Pick<ProvisioningDeps, 'store'>,
  filter: { consumerId?: string } = {},
): Promise<Subscription[]> {
  return filter.consumerId === undefined ? deps.store.subscriptions.list() : deps.store.subscriptions.listByConsumer(filter.consumerId);
}
