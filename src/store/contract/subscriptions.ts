export const LEGAL_BASES = ['CONSENT', 'CONTRACT', 'LEGITIMATE_INTEREST'] as const;
export type LegalBasis = (typeof LEGAL_BASES)[number];

/** A consumer's subscription: a set of data items, a redirect whitelist and a legal basis. */
export interface Subscription {
  /** A UUID. */
  subscriptionId: string;
  consumerId: string;
  dataItems: string[];
  allowedRedirectUrls: string[];
  /** CONSENT (default): data flows only with an active user consent per vehicle. */
  legalBasis: LegalBasis;
  createdAt: string;
}

export interface SubscriptionRepo {
  create(subscription: Subscription): Promise<void>;
  get(subscriptionId: string): Promise<Subscription | null>;
  list(): Promise<Subscription[]>;
  listByConsumer(consumerId: string): Promise<Subscription[]>;
  /** Subscriptions whose dataItems include this item (push fan-out). */
  listContainingItem(item: string): Promise<Subscription[]>;
}
