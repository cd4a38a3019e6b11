import { MQTT_SHARE_MEMBERS } from '../../queues/keys.ts';
import type { RedisClient } from '../../queues/redis.ts';

/**
 * Which sessions of one share group the broker holds, as far as this installation knows: a
 * sorted set in Redis, `<QUEUE_PREFIX>:mqtt-share-members:<group>` (MQTT_SHARE_MEMBERS, the only Redis key of the
 * MQTT subscriber), client id → when the broker will drop that session if it does not come
 * back (its last sign of life plus MQTT_SESSION_EXPIRY_S).
 *
 * It answers one question at a graceful stop: leave the group, or keep the session? A member
 * that leaves ends its session, so the broker stops giving it a share; but if every member
 * left, no session would hold the subscription any more and the broker would drop what is
 * published until one is back. So a stopping member leaves only while another session of the
 * group stays, a crashed one included (the broker keeps queueing its share for it), and the
 * last one keeps its session: a stop of the whole installation loses nothing the broker can
 * queue.
 */
export interface ShareMembers {
  /** This session holds the group's subscription until `expiresAtMs` unless renewed. */
  joined(expiresAtMs: number): Promise<void>;
  /**
   * Atomically: when another unexpired session is known, forgets this one and answers true
   * (leave); otherwise keeps it and answers false (this is the last member: keep the session).
   */
  mayLeave(nowMs: number): Promise<boolean>;
}

const MAY_LEAVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local others = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then others = others - 1 end
if others > 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0`;

export function createShareMembers(redis: RedisClient, queuePrefix: string, group: string, clientId: string): ShareMembers {
  const key = MQTT_SHARE_MEMBERS.key(queuePrefix, group);
  return {
    async joined(expiresAtMs) {
      await redis.zadd(key, expiresAtMs, clientId);
    },
    async mayLeave(nowMs) {
      return (await redis.eval(MAY_LEAVE, 1, key, clientId, String(nowMs))) === 1;
    },
  };
}
