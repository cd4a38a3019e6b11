/**
 * Consent processes. OWNED BY THE CONSENT WORK (src/consent/), which completes this contract.
 * Other parts rely only on the members marked "shared".
 *
 * The state machine itself (which event leads from which states to which) lives in
 * src/consent/states.ts; the store only applies a transition it is given, with one conditional
 * update, so that of two racing requests exactly one wins.
 */

// The domain's words (src/domain/consent-states.ts): the contract stores them, it does not define them.
import type { ConsentState } from '../../domain/consent-states.ts';

export type { ConsentState };

/** One entry of a process's history: the state it entered and when. */
export interface ConsentHistoryEntry {
  state: ConsentState;
  at: string;
  /** The spec 7.2 error code, on entries into FAILED. */
  errorCode?: string;
}

export interface ConsentRecord {
  consentId: string;
  consumerId: string;
  subscriptionId: string;
  vin: string | null;
  /** Named state of the consent state machine (see src/consent/states.ts). */
  state: ConsentState;
  stateChangedAt: string;
  createdAt: string;
  /** Adapter id of the manufacturer derived from the VIN; null until the VIN is known. */
  manufacturer: string | null;
  /** The subscription's data items when the process started: what the user is asked for. */
  dataItems: string[];
  /** The consumer's redirect URL (already checked against the whitelist), or null. */
  redirectUrl: string | null;
  /** The consumer's opaque `state`, echoed on every redirect, or null. */
  consumerState: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  /** When the user approved at the portal (spec: consent given to the service). */
  consentGivenAt: string | null;
  /** When the manufacturer step succeeded. */
  activatedAt: string | null;
  /** When the consumer confirmed with the code. */
  confirmedAt: string | null;
  /** Spec 7.2 code of the failure, when state is FAILED. */
  errorCode: string | null;
  /** Items the manufacturer granted. */
  grantedItems: string[] | null;
  /** Every state the process entered, oldest first, starting with STARTED. */
  history: ConsentHistoryEntry[];
  /** SHA-256 hex of the browser session the process is bound to. */
  sessionHash: string;
  /** SHA-256 hex of the portal form's CSRF token. */
  csrfHash: string;
  /** SHA-256 hex of the OAuth `state` sent to the manufacturer. Unique. */
  oauthStateHash: string | null;
  /** The PKCE verifier towards the manufacturer, encrypted (SecretBox). */
  pkceVerifierSealed: string | null;
  /** SHA-256 hex of the confirmation code. Unique. */
  codeHash: string | null;
  /** The consumer's PKCE S256 challenge given at the portal, if any. */
  consumerCodeChallenge: string | null;
}

/** Fields a transition may set besides state, stateChangedAt, history and errorCode. */
export type ConsentPatch = Partial<
  Pick<
    ConsentRecord,
    | 'vin'
    | 'manufacturer'
    | 'firstName'
    | 'lastName'
    | 'email'
    | 'consentGivenAt'
    | 'activatedAt'
    | 'confirmedAt'
    | 'grantedItems'
    | 'oauthStateHash'
    | 'pkceVerifierSealed'
    | 'codeHash'
  >
>;

/** Which process a transition applies to: by id, or by confirmation code for its consumer. */
export type ConsentSelector = { consentId: string } | { codeHash: string; consumerId: string };

export interface ConsentTransition {
  /** The update applies only while the process is in one of these states. */
  from: readonly ConsentState[];
  to: ConsentState;
  at: string;
  /**
   * The update applies only if neither the last state change nor (when given) the consent is
   * older than this instant: the spec's 10-minute limits, decided inside the same update.
   */
  notBefore?: string;
  errorCode?: string;
  set?: ConsentPatch;
}

export interface ConsentListFilter {
  vin?: string;
}

export interface ConsentRepo {
  /** Stores a new process. Fails with a DuplicateKeyError on a used id or hash. */
  create(record: ConsentRecord): Promise<void>;
  get(consentId: string): Promise<ConsentRecord | null>;
  findByOAuthStateHash(hash: string): Promise<ConsentRecord | null>;
  findByCodeHash(hash: string): Promise<ConsentRecord | null>;
  /** The subscription's processes, newest first. */
  listBySubscription(subscriptionId: string, filter?: ConsentListFilter): Promise<ConsentRecord[]>;
  /** Every subscription's processes for the VIN, newest first (erasure notices, withdrawal at the portal). */
  listByVin(vin: string): Promise<ConsentRecord[]>;
  /**
   * Applies a transition with ONE conditional update: the process changes only if it matches
   * the selector, is in a `from` state and meets `notBefore`. Returns the updated process, or
   * null when nothing matched (another request won, or the process is in another state).
   */
  transition(selector: ConsentSelector, change: ConsentTransition): Promise<ConsentRecord | null>;
  /**
   * Keeps the newest process of the subscription and VIN that is in a `from` state (latest
   * activatedAt, then smallest consentId: the one findActive returns) and moves every other one
   * in a `from` state to `to` (a newer consent replaces older ones). Returns how many changed.
   * Safe when two activations race: a call moves only processes older than the newest one it
   * sees, so the newest is never moved, and the call that follows the last activation leaves
   * exactly one.
   */
  keepNewest(subscriptionId: string, vin: string, change: Omit<ConsentTransition, 'notBefore' | 'set' | 'errorCode'>): Promise<number>;
  /** shared: the consent that currently lets the subscription read the VIN's data, or null. */
  findActive(subscriptionId: string, vin: string): Promise<ConsentRecord | null>;
  /** shared: the subset of `vins` that have an active consent in the subscription. */
  activeVins(subscriptionId: string, vins: string[]): Promise<Set<string>>;
  /**
   * Retention (src/consent/sweep.ts): up to `limit` processes in one of `states` whose last
   * state change is before `before` (ISO), oldest change first.
   */
  listChangedBefore(states: readonly ConsentState[], before: string, limit: number): Promise<ConsentRecord[]>;
  /**
   * Retention: deletes every process in one of `states` whose last state change is before
   * `before` (ISO); with `neverActive`, only those that never became active (`activatedAt`
   * null: no data ever flowed under them). Returns how many.
   */
  deleteChangedBefore(states: readonly ConsentState[], before: string, opts?: { neverActive?: boolean }): Promise<number>;
  /** shared: GDPR erasure of every consent process of the VIN. Returns how many. */
  deleteByVin(vin: string): Promise<number>;
  /** shared: GDPR erasure of the VIN's consent processes in one subscription. Returns how many. */
  deleteBySubscriptionAndVin(subscriptionId: string, vin: string): Promise<number>;
}
