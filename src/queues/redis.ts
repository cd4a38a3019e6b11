import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis that accepts connections but stops answering (paused, swapping, stuck in a long
 * command) must not hold requests: a producer's or a client's command fails after this long.
 * Not for workers, whose blocking commands wait by design.
 */
const COMMAND_TIMEOUT_MS = 2000;

/**
 * ioredis options for a purpose, following BullMQ's production advice: producers fail fast
 * when Redis is down or hung (so HTTP ingest answers 503 and an MQTT publish goes without
 * PUBACK, instead of hanging), workers retry forever.
 */
export function redisOptions(url: string, purpose: 'producer' | 'worker' | 'client'): RedisOptions {
  const u = new URL(url);
  const base: RedisOptions = {
    host: u.hostname,
    port: Number(u.port || 6379),
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  switch (purpose) {
    case 'producer':
      return { ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS };
    case 'worker':
      return { ...base, maxRetriesPerRequest: null };
    case 'client':
      return { ...base, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS };
  }
}

export function createRedisClient(url: string, purpose: 'producer' | 'worker' | 'client' = 'client'): Redis {
  return new Redis(redisOptions(url, purpose));
}
