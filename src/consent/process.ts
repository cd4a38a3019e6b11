import type { ConsentPatch, ConsentRecord, ConsentSelector, Store } from '../store/contract.ts';
import { metrics } from '../metrics/metrics.ts';
import { TRANSITIONS, type ConsentEvent } from './states.ts';

export interface EventOptions {
  at: Date;
  /** Apply only if neither the last state change nor the consent is older than this. */
  notBefore?: string;
  errorCode?: string;
  set?: ConsentPatch;
}

/**
 * Applies one event of the state machine to a stored process: the store performs it as one
 * conditional update guarded by the event's legal `from` states, so of two racing requests
 * exactly one gets the updated record and the other gets null.
 */
export async function applyEvent(
  store: Store,
  selector: ConsentSelector,
  event: ConsentEvent,
  opts: EventOptions,
): Promise<ConsentRecord | null> {
  const { from, to } = TRANSITIONS[event];
  const updated = await store.consents.transition(selector, {
    from,
    to,
    at: opts.at.toISOString(),
    ...(opts.notBefore !== undefined ? { notBefore: opts.notBefore } : {}),
    ...(opts.errorCode !== undefined ? { errorCode: opts.errorCode } : {}),
    ...(opts.set ? { set: opts.set } : {}),
  });
  // The consent funnel: how many processes reach each state.
  if (updated) metrics.consentFunnel.inc({ state: to });
  return updated;
}

/**
 * GRANT: the process becomes the active consent of its subscription and VIN, and any older
 * active one of them is SUPERSEDED (one active consent per subscription and vehicle). Two
 * processes of one subscription and VIN granted at once end with exactly one of them active,
 * the newest (store keepNewest). Null when the process was not in a state to be granted.
 */
export async function grantConsent(store: Store, consentId: string, opts: EventOptions): Promise<ConsentRecord | null> {
  const active = await applyEvent(store, { consentId }, 'GRANT', opts);
  if (active?.vin) await store.consents.keepNewest(active.subscriptionId, active.vin, { ...TRANSITIONS.SUPERSEDE, at: opts.at.toISOString() });
  return active;
}
