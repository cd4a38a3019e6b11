import type { ConsentDeps } from './context.ts';
import { notBefore } from './deadlines.ts';
import { applyEvent } from './process.ts';
import { PENDING_STATES, UNSUCCESSFUL_END_STATES } from './states.ts';

const DAY_MS = 86_400_000;
/** Pending processes read per store call; the sweep reads until none past the deadline are left. */
const BATCH = 500;

export interface SweepResult {
  /** Pending processes moved to TIMED_OUT. */
  timedOut: number;
  /** Unsuccessful processes deleted after CONSENT_PROCESS_RETENTION_DAYS. */
  deleted: number;
}

/**
 * Storage limitation for consent processes (GDPR Art. 5(1)(e)). Every decision at the portal
 * stores a process with the user's details (a visit alone stores nothing); without this,
 * abandoned and failed ones would stay forever. Run by the periodic retention job (src/gdpr/retention.ts), by the injected clock:
 *
 * 1. A pending process whose last state change is more than CONSENT_CODE_TTL_S old moves to
 *    TIMED_OUT, through the same conditional update as the lazy path (portal-flow.ts
 *    `wrongState`, consumer-api.ts `listConsents`): of the sweep and a racing request exactly
 *    one applies it. Nothing else can move such a process on any more: approval and callback
 *    check the same limit, and a token exchange started by the last state change has ended
 *    (OEM_TOKEN_TIMEOUT_MS). A process whose *consent* is past the limit but whose last step is
 *    recent (a callback at minute 9) is left to its running exchange and swept next time.
 * 2. REJECTED, FAILED and TIMED_OUT processes, and REVOKED ones that never became active
 *    (cancelled before the manufacturer step ended), whose last state change is older than
 *    CONSENT_PROCESS_RETENTION_DAYS are deleted. Given consents (ACTIVE, CONFIRMED) and the
 *    record of how one ended (REVOKED, SUPERSEDED) are kept until erasure (src/gdpr/erase.ts).
 *
 * Idempotent, so several processes may run it at once.
 */
export async function sweepConsentProcesses(services: ConsentDeps): Promise<SweepResult> {
  const { store, clock, config } = services;
  const now = clock.now();
  const deadline = notBefore(now, config.CONSENT_CODE_TTL_S);
  let timedOut = 0;
  for (;;) {
    const stale = await store.consents.listChangedBefore(PENDING_STATES, deadline, BATCH);
    let moved = 0;
    for (const r of stale) {
      if (await applyEvent(store, { consentId: r.consentId }, 'EXPIRE', { at: now })) moved++;
    }
    timedOut += moved;
    // A full batch that moved nothing lost every race to other requests: stop rather than spin.
    if (stale.length < BATCH || moved === 0) break;
  }
  const cutoff = new Date(now.getTime() - config.CONSENT_PROCESS_RETENTION_DAYS * DAY_MS).toISOString();
  const deleted =
    (await store.consents.deleteChangedBefore(UNSUCCESSFUL_END_STATES, cutoff)) +
    // Revoked before it became active: no data flowed under it, there is no consent to record.
    (await store.consents.deleteChangedBefore(['REVOKED'], cutoff, { neverActive: true }));
  return { timedOut, deleted };
}
