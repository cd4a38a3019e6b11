import type { SecretBox } from '../crypto.ts';

/**
 * Job data that keeps personal data out of Redis (a VIN there is pseudonymised or sealed): one JSON value
 * sealed with the service's secret box (AES-256-GCM), beside the few fields that may stay
 * readable (e.g. a count for logs). A tampered or foreign job fails authentication when it is
 * opened instead of being acted on.
 */
export type SealedJobData<Clear extends object> = Clear & { v: 1; sealed: string };

export function sealJobData<Clear extends object>(secrets: SecretBox, clear: Clear, secret: unknown): SealedJobData<Clear> {
  return { v: 1, ...clear, sealed: secrets.encrypt(JSON.stringify(secret)) };
}

/**
 * The sealed value, parsed. Throws when the data is not a job we wrote with this key (wrong
 * SECRET_KEY, corrupted data); `kind` names the job in that error.
 */
export function openJobData(secrets: SecretBox, data: unknown, kind: string): unknown {
  const d = data as Partial<SealedJobData<object>> | null;
  if (!d || d.v !== 1 || typeof d.sealed !== 'string') throw new Error(`not a ${kind} job (unknown format)`);
  return JSON.parse(secrets.decrypt(d.sealed));
}

/**
 * A JSON value sealed with the service key on its own (not in a job), e.g. short-lived Redis
 * state; null when it is absent or was not sealed with this key (expired, SECRET_KEY changed,
 * corrupt): such a value is treated as if it were gone.
 */
export function openSealedJson(secrets: SecretBox, sealed: string | null): unknown {
  if (sealed === null) return null;
  try {
    return JSON.parse(secrets.decrypt(sealed));
  } catch {
    return null;
  }
}
