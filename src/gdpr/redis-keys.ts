import type { Redis } from 'ioredis';
import { openSealedJson } from '../queues/sealed-job.ts';
import type { Services } from '../services.ts';

const SCAN_COUNT = 500;

/** Escapes Redis glob characters, so a value is matched literally inside a SCAN pattern. */
function literal(value: string): string {
  return value.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** Deletes the keys matching the pattern (and, when given, accepted by `erase`). Returns how many. */
async function scanDelete(redis: Redis, pattern: string, erase?: (key: string) => Promise<boolean>): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
    cursor = next;
    for (const key of keys) {
      if (erase && !(await erase(key))) continue;
      deleted += await redis.del(key);
    }
  } while (cursor !== '0');
  return deleted;
}

/**
 * Erases the short-lived Redis keys that name the VIN or its pseudonym: the per-vehicle rate
 * limit counters (src/rate-limit/limits.ts) and the push update throttles
 * (src/push/update-throttle.ts), both keyed by the pseudonym, and, VIN-wide only, the values
 * sealed with the service key that hold the VIN: the simulated manufacturers' pending
 * authorization codes (src/virtual/oem/codes.ts) and the consent portal's withdrawal sessions
 * and round trips that proved control of the vehicle (src/consent/withdrawal-session.ts). They
 * would expire within minutes to hours anyway; erasure does not wait for that: a pseudonymised
 * counter is still personal data (EDPB 01/2020), and it tells that the vehicle was read.
 * Counters that an older version named with the VIN in clear are not looked for: each expires
 * two windows (RATE_LIMIT_VEHICLE_WINDOW_S) after its first hit, so none outlives that version
 * by more.
 *
 * SCAN visits one node: on a Redis Cluster this must run against every primary.
 */
export async function eraseRedisKeys(services: Pick<Services, 'config' | 'redis' | 'secrets'>, vin: string, subscriptionId: string | undefined): Promise<number> {
  const { redis, config, secrets } = services;
  const prefix = literal(config.QUEUE_PREFIX);
  const sub = subscriptionId === undefined ? '*' : literal(subscriptionId);
  let n = 0;
  const vehicle = literal(secrets.pseudonym(vin));
  // One counter per window: `<prefix>:rl:{<subscription>}:v:<pseudonym>:<window start>`.
  n += await scanDelete(redis, `${prefix}:rl:{${sub}}:v:${vehicle}:*`);
  n += await scanDelete(redis, `${prefix}:push:throttle:${sub}:${vehicle}:*`);
  if (subscriptionId === undefined) {
    // Neither names a subscription: a code or a withdrawal belongs to the vehicle's user.
    const sealedNaming = (vinsOf: (opened: Record<string, unknown>) => unknown[]) => async (key: string) => {
      const opened = openSealedJson(secrets, await redis.get(key));
      return opened !== null && typeof opened === 'object' && vinsOf(opened as Record<string, unknown>).includes(vin);
    };
    n += await scanDelete(redis, `${prefix}:oem:*:code:*`, sealedNaming((code) => [code.vin]));
    n += await scanDelete(redis, `${prefix}:withdraw:*`, sealedNaming((w) => [w.vin, (w.proof as { vin?: unknown } | undefined)?.vin]));
  }
  return n;
}
