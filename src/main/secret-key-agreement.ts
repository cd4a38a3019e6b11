import type { Services } from '../services.ts';
import { SECRET_KEY_FINGERPRINT } from '../queues/keys.ts';

/** A process whose SECRET_KEY differs from the one the installation's other processes use. */
export class SecretKeyMismatchError extends Error {
  constructor() {
    super(
      'SECRET_KEY differs from the one the other processes of this installation use (same REDIS_URL and QUEUE_PREFIX): ' +
        'it could not open the jobs they seal nor the secrets they store. Give every process the same SECRET_KEY (docs/operations.md).',
    );
    this.name = 'SecretKeyMismatchError';
  }
}

/** How long the fingerprint outlives the last process that renewed it. */
const TTL_S = 300;
const RENEW_MS = 60_000;

/**
 * Every process of one installation must share SECRET_KEY: jobs (pipeline batches, activation
 * jobs, notices) are sealed with it and stored secrets encrypted with it. The running processes
 * keep a keyed fingerprint of it in Redis, the one place they all share: the first writes it,
 * each renews it every minute while it matches, and a process whose key differs is told
 * (`onMismatch`, at most once) as soon as its Redis connection is up, and at every renewal. The
 * fingerprint is a keyed hash of a constant: it tells nothing about the key. It lapses
 * {@link TTL_S} seconds after the last process holding it stopped, so a deliberate change of
 * key (every process stopped, queues drained) is accepted once that time has passed.
 */
export function watchSecretKeyAgreement(services: Services, onMismatch: (err: SecretKeyMismatchError) => void): void {
  const { redis, secrets, config, logger } = services;
  const key = SECRET_KEY_FINGERPRINT.key(config.QUEUE_PREFIX);
  const mine = secrets.pseudonym('cvd:secret-key-fingerprint:v1');
  let reported = false;
  // A process that has matched the installation's key once is the installation: if the
  // fingerprint later differs, it was lost (Redis lost its data) and written again by a process
  // with a wrong key, which must not make every healthy process exit. That one is logged.
  let matched = false;
  const check = async () => {
    await redis.set(key, mine, 'EX', TTL_S, 'NX');
    if ((await redis.get(key)) === mine) {
      matched = true;
      await redis.expire(key, TTL_S);
    } else if (matched) {
      logger.error('a process with another SECRET_KEY took over the SECRET_KEY fingerprint in Redis: find it and give it the same SECRET_KEY');
    } else if (!reported) {
      reported = true;
      onMismatch(new SecretKeyMismatchError());
    }
  };
  const run = () => {
    if (redis.status !== 'ready') return;
    void check().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'SECRET_KEY agreement not checked; checked again on the next renewal'));
  };
  redis.on('ready', run);
  run();
  setInterval(run, RENEW_MS).unref();
}
