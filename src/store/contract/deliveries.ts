/**
 * Push deliveries: one row per (subscription, event or update), keyed by its transactionId.
 * OWNED BY THE PUSH WORK (src/push/). Other parts rely only on the members marked "shared".
 *
 * The row, not the queue job, holds the VIN and the data point, so queue jobs carry only the
 * transactionId (job data holds no personal data) and a replay needs nothing else. The unique index on
 * transactionId is the durable dedup: a redelivered event is never sent twice, even after its
 * queue job was removed.
 */
export const DELIVERY_STATUSES = ['PENDING', 'RETRYING', 'DELIVERED', 'DEAD', 'DROPPED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** Still to be sent: a queue job (or its retry) is due for these. */
export const IN_FLIGHT_STATUSES = ['PENDING', 'RETRYING'] as const satisfies readonly DeliveryStatus[];

/**
 * `event`: a push item (accident calls…); `update`: a pull item a webhook asked to be pushed;
 * `notice`: a `vehicle.data_erased` notice (src/push/notices/erasure-notice.ts). A notice's row keeps no
 * VIN (`vin` is empty), because it outlives the erasure it reports.
 */
export type DeliveryKind = 'event' | 'update' | 'notice';

/** At most this many attempts are kept per delivery (the oldest go first). */
export const MAX_STORED_ATTEMPTS = 50;

export interface DeliveryAttempt {
  /** When the attempt started. */
  at: string;
  /** HTTP status of the answer, null when none came (timeout, refused, blocked). */
  statusCode: number | null;
  /** Short reason of a failure, null on success. Never the receiver's response body. */
  error: string | null;
  durationMs: number;
}

export interface DeliveryRecord {
  /** UUID, deterministic in (subscriptionId, vin, item, timestampMs). Unique. */
  transactionId: string;
  subscriptionId: string;
  /** The webhook endpoint it goes to; absent for the default one (DEFAULT_ENDPOINT). */
  endpointId?: string;
  vin: string;
  item: string;
  kind: DeliveryKind;
  /** The data point's time, epoch ms. */
  timestampMs: number;
  /** The harmonized payload (the envelope's dataPoint). */
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  lastError: string | null;
  /** When the next attempt is due while RETRYING, else null. */
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryQuery {
  subscriptionId: string;
  /** Only the deliveries of this endpoint (`default` for the default one); all when omitted. */
  endpointId?: string;
  status?: DeliveryStatus;
  /** createdAt at or after this instant (ISO). */
  since?: string;
  /** createdAt before this instant (ISO, exclusive). */
  until?: string;
  /** Only these kinds (all when omitted). */
  kinds?: readonly DeliveryKind[];
  /** 1..1000. */
  limit: number;
}

/** What an attempt changes besides appending itself. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  lastError: string | null;
  nextAttemptAt: string | null;
  at: string;
}

export interface DeliveryRepo {
  /** Inserts the row unless its transactionId exists already. True when inserted. */
  insertIfAbsent(record: DeliveryRecord): Promise<boolean>;
  get(transactionId: string): Promise<DeliveryRecord | null>;
  /** Newest first (createdAt, then transactionId). */
  list(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /**
   * Appends an attempt (keeping the newest {@link MAX_STORED_ATTEMPTS}) and sets the outcome, in
   * one atomic write. False when the row is gone (erased meanwhile).
   */
  recordAttempt(transactionId: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean>;
  /**
   * Sets status (and lastError) only when the current status is in `from`: the conditional write
   * that makes two concurrent replays, or a replay racing a worker, resolve to one winner.
   * Clears nextAttemptAt; `lastError` undefined keeps the current one, null clears it.
   * Returns the updated row, or null when nothing matched.
   */
  transition(
    transactionId: string,
    from: readonly DeliveryStatus[],
    to: DeliveryStatus,
    at: string,
    lastError?: string | null,
  ): Promise<DeliveryRecord | null>;
  /**
   * shared: in-flight deliveries that should have been attempted before `before` (ISO instant,
   * exclusive): PENDING ones last changed before it, RETRYING ones whose next attempt was due
   * before it. Oldest change first (updatedAt, then transactionId), at most `limit` (1..1000),
   * after the row `after` when given (the last of the previous page). The push reconciler's
   * query: a row that stays here long may have lost its queue job.
   */
  listOverdue(before: string, limit: number, after?: { updatedAt: string; transactionId: string }): Promise<DeliveryRecord[]>;
  /** shared: GDPR erasure. Returns how many. */
  deleteByVin(vin: string): Promise<number>;
  /** shared: GDPR erasure of the VIN's deliveries in one subscription. Returns how many. */
  deleteBySubscriptionAndVin(subscriptionId: string, vin: string): Promise<number>;
  /**
   * shared: retention (GDPR storage limitation). Deletes the deliveries created before `cutoff`
   * (ISO instant, exclusive), whatever their status, in chunks so that no single write holds the
   * store for long. A job still queued for a deleted row finds it gone and sends nothing, as
   * after an erasure. Returns how many.
   */
  deleteOlderThan(cutoff: string): Promise<number>;
}
