import { openSealedJson } from '../queues/sealed-job.ts';
import type { Config } from '../config.ts';
import type { ConsentContext } from './context.ts';
import type { WithdrawalStateDeps } from './context.ts';
import { WITHDRAWAL_SESSION, WITHDRAWAL_STATE } from '../queues/keys.ts';

/**
 * The short-lived state of a withdrawal at the portal, in Redis under QUEUE_PREFIX (it lives
 * minutes, like the portal's rate-limit counters, so it needs no store table). Keys name only
 * hashes (of the browser session, of the OAuth state), never a VIN; values are sealed with the
 * service key, so Redis holds no VIN in clear. Each value carries its own time, checked
 * against the service clock (CONSENT_CODE_TTL_S, the flow's 10 minutes); the Redis TTL only
 * cleans up.
 */

/** One browser session's withdrawal: its CSRF token, and the VIN it proved at the manufacturer. */
export interface WithdrawalSession {
  /** The CSRF token of this session's forms (sealed, so every page of the session can show it). */
  csrf: string;
  /** When the session started (the start form is valid that long). */
  at: string;
  /** Set by a successful manufacturer round trip: the VIN this browser proved control of. */
  proof?: { vin: string; manufacturer: string; at: string };
  /** The last withdrawal, shown once on the list page. */
  withdrawn?: { consumerName: string; consentId: string };
}

/** A round trip to the manufacturer that has not come back yet (keyed by the state's hash). */
export interface PendingProof {
  sessionHash: string;
  vin: string;
  manufacturer: string;
  codeVerifier: string;
  at: string;
}

const sessionKey = (config: Pick<Config, 'QUEUE_PREFIX'>, sessionHash: string) => WITHDRAWAL_SESSION.key(config.QUEUE_PREFIX, sessionHash);
const stateKey = (config: Pick<Config, 'QUEUE_PREFIX'>, stateHash: string) => WITHDRAWAL_STATE.key(config.QUEUE_PREFIX, stateHash);

/** True while `at` is at most CONSENT_CODE_TTL_S old by the service clock. */
export function fresh(services: Pick<ConsentContext, 'clock' | 'config'>, at: string): boolean {
  return services.clock.now().getTime() - Date.parse(at) <= services.config.CONSENT_CODE_TTL_S * 1000;
}

const open = <T>(services: Pick<ConsentContext, 'secrets'>, sealed: string | null) => openSealedJson(services.secrets, sealed) as T | null;

async function put(services: WithdrawalStateDeps, key: string, value: object): Promise<void> {
  // Twice the TTL: the clock check decides; this only bounds how long Redis keeps it.
  await services.redis.set(key, services.secrets.encrypt(JSON.stringify(value)), 'EX', services.config.CONSENT_CODE_TTL_S * 2);
}

export async function loadSession(services: WithdrawalStateDeps, sessionHash: string): Promise<WithdrawalSession | null> {
  return open<WithdrawalSession>(services, await services.redis.get(sessionKey(services.config, sessionHash)));
}

export const saveSession = (services: WithdrawalStateDeps, sessionHash: string, session: WithdrawalSession) =>
  put(services, sessionKey(services.config, sessionHash), session);

export const savePending = (services: WithdrawalStateDeps, stateHash: string, pending: PendingProof) => put(services, stateKey(services.config, stateHash), pending);

export async function peekPending(services: WithdrawalStateDeps, stateHash: string): Promise<PendingProof | null> {
  return open<PendingProof>(services, await services.redis.get(stateKey(services.config, stateHash)));
}

/** Takes the round trip out for good (GETDEL): of a callback and its replay, one gets it. */
export async function claimPending(services: Pick<ConsentContext, 'config' | 'redis'>, stateHash: string): Promise<boolean> {
  return (await services.redis.getdel(stateKey(services.config, stateHash))) !== null;
}
