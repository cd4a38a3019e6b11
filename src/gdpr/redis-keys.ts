import type { Redis } from 'ioredis';
import { keyFamilies, type KeyErasure } from '../queues/keys.ts';
import { isCluster, masters, type RedisClient } from '../queues/redis.ts';
import { openSealedJson } from '../queues/sealed-job.ts';
import type { GdprContext } from './context.ts';

const SCAN_COUNT = 500;

/**
 * Visits the keys matching the pattern on one master; `erase` deletes what it must of each and
 * returns how many keys (or entries) went. SCAN sees one server only: the caller runs it on
 * every master.
 */
async function scanMaster(server: Redis, pattern: string, erase: (key: string) => Promise<number>): Promise<number> {
  let cursor = '0';
  let erased = 0;
  do {
    const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
    cursor = next;
    for (const key of keys) erased += await erase(key);
  } while (cursor !== '0');
  return erased;
}

/** The connections to every master, the cluster connected first (a fresh client knows none yet). */
async function everyMaster(redis: RedisClient): Promise<Redis[]> {
  if (isCluster(redis) && redis.status !== 'ready') await redis.ping();
  return masters(redis);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';

/**
 * What one family's erasure does with one key on its master (the master owns the key, so the
 * commands go to it directly). Each kind of erasure the registry declares is handled here: a
 * new kind does not compile until it is.
 */
function eraser(server: Redis, erasure: Exclude<KeyErasure, { by: 'none' } | { in: 'queue-jobs' }>, vin: string, secrets: GdprContext['secrets']): (key: string) => Promise<number> {
  if (erasure.by === 'pseudonym') return (key) => server.del(key);
  switch (erasure.in) {
    case 'sealed-value':
      return async (key) => {
        const opened = openSealedJson(secrets, await server.get(key));
        return isRecord(opened) && erasure.vins(opened).includes(vin) ? server.del(key) : 0;
      };
    case 'list-entries':
      return async (key) => {
        let removed = 0;
        for (const entry of await server.lrange(key, 0, -1)) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(entry);
          } catch {
            continue;
          }
          if (isRecord(parsed) && erasure.vins(parsed).includes(vin)) removed += await server.lrem(key, 0, entry);
        }
        return removed;
      };
  }
}

/**
 * Erases what Redis keeps of the VIN outside the queues, by walking the keyspace registry
 * (src/queues/keys.ts) on every master: each family's declared erasure says how. Families keyed
 * by the VIN's pseudonym (the per-vehicle rate-limit counters, the push update throttles) are
 * deleted, in every subscription or in one; VIN-wide only, values sealed with the service key
 * that hold the VIN (the simulated manufacturers' pending authorization codes, the consent
 * portal's withdrawal sessions and round trips) are opened and deleted when they name it, and
 * the simulated polled API's request log loses the VIN's entries. The queues' jobs are the
 * queue sweeps' (src/gdpr/erase.ts). These keys would expire within minutes to hours anyway;
 * erasure does not wait for that: a pseudonymised counter is still personal data (EDPB
 * 01/2020), and it tells that the vehicle was read. Counters that an older version named with
 * the VIN in clear are not looked for: each expires two windows (RATE_LIMIT_VEHICLE_WINDOW_S)
 * after its first hit, so none outlives that version by more.
 *
 * Returns how many keys (and log entries) went.
 */
export async function eraseRedisKeys(services: Pick<GdprContext, 'config' | 'redis' | 'secrets'>, vin: string, subscriptionId: string | undefined): Promise<number> {
  const { config, secrets } = services;
  const prefix = config.QUEUE_PREFIX;
  const pseudonym = secrets.pseudonym(vin);
  let n = 0;
  for (const server of await everyMaster(services.redis)) {
    for (const family of keyFamilies()) {
      const erasure = family.erasure;
      if (erasure.by === 'none' || (erasure.by === 'vin' && erasure.in === 'queue-jobs')) continue;
      if (erasure.by === 'pseudonym') {
        for (const pattern of erasure.patterns(prefix, pseudonym, subscriptionId)) n += await scanMaster(server, pattern, eraser(server, erasure, vin, secrets));
      } else if (subscriptionId === undefined) {
        // A code, a withdrawal or a log line belongs to the vehicle's user, not to a subscription.
        n += await scanMaster(server, erasure.pattern(prefix), eraser(server, erasure, vin, secrets));
      }
    }
  }
  return n;
}
