import type { ManualClock } from '../../src/clock.ts';
import type { TestConsumer } from '../helpers/app.ts';
import type { LiveApp } from './harness.ts';

/**
 * The small model of the consent lifecycle that
 * lifecycle-model.test.ts checks the real service against, and the real side it drives.
 * Everything here is what a consumer or an operator can observe over HTTP.
 */

export type Sub = 'A' | 'B';
export const SUBS: readonly Sub[] = ['A', 'B'];
export const other = (s: Sub): Sub => (s === 'A' ? 'B' : 'A');

/** Activation as a subscription sees it once the manufacturer answered; NONE = no row. */
export type Activation = 'NONE' | 'ACTIVATED' | 'DEACTIVATED';

/** A consent process; ERASED = deleted by a GDPR erasure (the service no longer knows it). */
export type ModelConsentState = 'ACTIVE' | 'CONFIRMED' | 'REVOKED' | 'SUPERSEDED' | 'FAILED' | 'ERASED';

export interface ModelConsent {
  sub: Sub;
  vin: number;
  state: ModelConsentState;
  givenAtMs: number;
  /** Whether the flow handed the consumer a confirmation code (only successful flows do). */
  hasCode: boolean;
}

export interface Model {
  nowMs: number;
  /** CONSENT_CODE_TTL_S in ms: how long after consent was given the code may be redeemed. */
  ttlMs: number;
  activation: Record<Sub, Activation[]>;
  /** Every process the flow created, in order; index = index into Real.issued. */
  consents: ModelConsent[];
  /** The latest batteryvoltage point of each VIN (shared by every subscription), or none. */
  latest: ({ value: number; atMs: number } | null)[];
  /** How many points of each VIN are stored (what a VIN-wide erasure must report). */
  points: number[];
  /** Seeded points get strictly increasing timestamps from here, so "latest" is unambiguous. */
  nextPointMs: number;
}

export interface Real {
  t: LiveApp;
  clock: ManualClock;
  consumers: Record<Sub, TestConsumer>;
  vins: string[];
  /** What the real service handed out for each model consent. */
  issued: { consentId: string; code: string | null }[];
  /** Outcomes observed, shared by every run: proves the runs reached the lifecycle's steps. */
  seen: Set<string>;
}

export const ACTIVE_STATES: readonly ModelConsentState[] = ['ACTIVE', 'CONFIRMED'];

export function hasActiveConsent(m: Readonly<Model>, sub: Sub, vin: number): boolean {
  return m.consents.some((c) => c.sub === sub && c.vin === vin && ACTIVE_STATES.includes(c.state));
}

/** What POST /delivery/v1/in-vehicle must answer for one VIN: a vehicle error code, or the item. */
export type ExpectedRead = { vehicleError: 'CAR.VE.903' | 'CAR.VE.905' } | { point: { value: number; atMs: number } | null };

export function expectedRead(m: Readonly<Model>, sub: Sub, vin: number): ExpectedRead {
  if (m.activation[sub][vin] !== 'ACTIVATED') return { vehicleError: 'CAR.VE.903' };
  if (!hasActiveConsent(m, sub, vin)) return { vehicleError: 'CAR.VE.905' };
  return { point: m.latest[vin] ?? null };
}

/** What the confirmation call must answer for a process's code, presented with its owner's key or the other consumer's. */
export type ExpectedRedeem = { status: 200 } | { status: 401 | 404 } | { status: 409; reason: RegExp };

export function expectedRedeem(m: Readonly<Model>, c: ModelConsent, byOther: boolean): ExpectedRedeem {
  // The code is looked up before the partner is compared: an erased process is unknown to anyone.
  if (c.state === 'ERASED') return { status: 404 };
  if (byOther) return { status: 401 };
  switch (c.state) {
    case 'ACTIVE':
      return m.nowMs - c.givenAtMs > m.ttlMs ? { status: 409, reason: /timed out/ } : { status: 200 };
    case 'CONFIRMED':
      return { status: 409, reason: /already confirmed/ };
    case 'REVOKED':
      return { status: 409, reason: /revoked/ };
    case 'SUPERSEDED':
      return { status: 409, reason: /newer consent/ };
    case 'FAILED':
      throw new Error('a failed process has no code');
  }
}
