/**
 * Webhook configurations, one per subscription (push delivery, api-contract section 7).
 * OWNED BY THE PUSH WORK (src/push/). Other parts rely only on the members marked "shared".
 *
 * Secrets are stored SEALED (src/crypto.ts SecretBox): signing needs the clear secret, so a hash
 * would not do. The store never sees a clear secret or Authorization value.
 */
export const WEBHOOK_STATUSES = ['ENABLED', 'DISABLED'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** One signing secret. The newest has `expiresAt: null`; a rotated-out one signs until `expiresAt`. */
export interface WebhookSecret {
  /** The sealed `whsec_…` value. */
  sealed: string;
  createdAt: string;
  expiresAt: string | null;
}

/**
 * The endpoint the single-webhook API (`/push/v1/webhook`) reads and writes. A subscription may
 * have more endpoints, each with its own secret, event filter and delivery log; a record of the
 * default endpoint has no `endpointId`, exactly as before there were several.
 */
export const DEFAULT_ENDPOINT = 'default';

export interface WebhookRecord {
  subscriptionId: string;
  /** Which of the subscription's endpoints; absent for {@link DEFAULT_ENDPOINT}. */
  endpointId?: string;
  /** Target URL, validated against SSRF at registration. */
  url: string;
  /** Newest first. Every secret whose expiresAt is null or in the future signs each request. */
  secrets: WebhookSecret[];
  /** Sealed value of the Authorization header to send, or null. */
  authorizationSealed: string | null;
  /** Pull items the consumer also wants pushed as updates; empty for events only. */
  items: string[];
  /** Least time between two update pushes of one (vehicle, item), in seconds of data time. */
  minIntervalSeconds: number;
  /**
   * Notice types the consumer opted in to (`vehicle.data_erased`,
   * `consent.revoked`); empty by default, so a webhook receives only the live service's data envelope.
   * A record stored before the field existed reads as empty.
   */
  notices: string[];
  /**
   * The event filter: the push items (events) this endpoint receives. Absent: every push item
   * of the subscription, as before there were filters.
   */
  events?: string[];
  status: WebhookStatus;
  /** Why the webhook was disabled (shown to the consumer), null while enabled. */
  disabledReason: string | null;
  /** Start of the current run of failures (no success since), null when the last attempt succeeded. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * Every method that names one webhook takes the subscription and, last and optional, the
 * endpoint ({@link DEFAULT_ENDPOINT} when omitted).
 */
export interface WebhookRepo {
  /** shared: the subscription's webhook at that endpoint, or null. */
  get(subscriptionId: string, endpointId?: string): Promise<WebhookRecord | null>;
  /** shared: every endpoint of the subscription, the default one first, then by endpointId. */
  list(subscriptionId: string): Promise<WebhookRecord[]>;
  /** Inserts or replaces the webhook at its endpoint (re-registration re-enables it). */
  put(record: WebhookRecord): Promise<void>;
  /** Removes it; false when there was none. */
  delete(subscriptionId: string, endpointId?: string): Promise<boolean>;
  /** Webhooks that ask for update pushes of pull items (`items` not empty): the fan-out's watch list. */
  listWatching(): Promise<Pick<WebhookRecord, 'subscriptionId' | 'endpointId' | 'items' | 'minIntervalSeconds'>[]>;
  /** Replaces the secrets (rotation). Returns false when there is no webhook. */
  setSecrets(subscriptionId: string, secrets: WebhookSecret[], at: string, endpointId?: string): Promise<boolean>;
  /**
   * Notes a failed attempt: sets failingSince to `at` unless a run of failures started earlier.
   * Returns the start of the run, or null when there is no webhook.
   */
  recordFailure(subscriptionId: string, at: string, endpointId?: string): Promise<string | null>;
  /** Notes a successful attempt: clears failingSince. */
  recordSuccess(subscriptionId: string, endpointId?: string): Promise<void>;
  /** Disables an ENABLED webhook with a reason. False when it was already disabled or is gone. */
  disable(subscriptionId: string, reason: string, at: string, endpointId?: string): Promise<boolean>;
}
