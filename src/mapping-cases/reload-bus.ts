import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../logger.ts';
import { subscribeChannels } from '../queues/channel-subscriber.ts';
import { MAPPING_RELOAD_CHANNEL, MAPPING_RELOADS } from '../queues/keys.ts';
import { isCluster, type RedisClient } from '../queues/redis.ts';
import type { Running } from '../running.ts';
import type { ReloadOutcome } from './reloader.ts';

/**
 * How every process of an installation reloads its mappings at once: the reload command (CLI
 * or console) publishes on one Redis channel, every process reloads from its own disk and
 * appends its outcome to one Redis list, which the command waits on and the console shows.
 * On a Redis Cluster the channel is a sharded one (src/queues/keys.ts, MAPPING_RELOAD_CHANNEL).
 */
export const reloadChannel = (prefix: string) => MAPPING_RELOAD_CHANNEL.channel(prefix);
const outcomesKey = (prefix: string) => MAPPING_RELOADS.key(prefix);
/** Outcomes kept (newest first), and how long the list stays after the last one. */
const KEPT = 100;
const KEPT_S = 30 * 86_400;

/** This process, as the outcomes name it: host and pid (no personal data). */
export const processName = () => `${hostname()}:${process.pid}`;

/** One process's outcome of one reload. */
export interface ProcessOutcome extends ReloadOutcome {
  process: string;
  roles: string[];
  /** The reload request it answers; null for one this process started itself (a file change). */
  requestId: string | null;
}

export async function recordOutcome(redis: RedisClient, prefix: string, outcome: ProcessOutcome): Promise<void> {
  const key = outcomesKey(prefix);
  await redis.multi().lpush(key, JSON.stringify(outcome)).ltrim(key, 0, KEPT - 1).expire(key, KEPT_S).exec();
}

/** The newest outcomes first, of every process. */
export async function recentOutcomes(redis: Pick<RedisClient, 'lrange'>, prefix: string, count = 20): Promise<ProcessOutcome[]> {
  const raw = await redis.lrange(outcomesKey(prefix), 0, count - 1);
  return raw.flatMap((r) => {
    try {
      return [JSON.parse(r) as ProcessOutcome];
    } catch {
      return [];
    }
  });
}

export interface ReloadRequest {
  requestId: string;
  /** How many processes got the request (subscribers of the channel when it was published). */
  processes: number;
  /** Their outcomes, as many as came within the wait. */
  outcomes: ProcessOutcome[];
}

/**
 * Asks every running process to reload, and waits up to `waitMs` until each one that got the
 * request has recorded its outcome (running the cases takes a moment).
 */
export async function requestReload(redis: RedisClient, prefix: string, opts: { waitMs: number; pollMs?: number }): Promise<ReloadRequest> {
  const requestId = randomUUID();
  const message = JSON.stringify({ requestId });
  const processes = Number(isCluster(redis) ? await redis.spublish(reloadChannel(prefix), message) : await redis.publish(reloadChannel(prefix), message));
  const deadline = Date.now() + opts.waitMs;
  let outcomes: ProcessOutcome[] = [];
  for (;;) {
    outcomes = (await recentOutcomes(redis, prefix, KEPT)).filter((o) => o.requestId === requestId);
    if (outcomes.length >= processes || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 100));
  }
  return { requestId, processes, outcomes };
}

/**
 * Subscribes this process to reload requests: `onRequest` runs for each (connections of its own,
 * as a subscriber must: one to a Redis server, or one to the cluster master that owns the
 * sharded channel). `ready` resolves once subscribed, so that a request published after it
 * reaches this process; the start does not wait for it (Redis may be down). After a lost
 * connection the subscription is made again by itself.
 */
export function listenForReloads(
  redis: { redisUrl: string; publisher: RedisClient },
  prefix: string,
  logger: Logger,
  onRequest: (requestId: string) => void,
): Running & { ready: Promise<void> } {
  const channel = reloadChannel(prefix);
  const sharded = isCluster(redis.publisher);
  let live: () => void = () => {};
  const ready = new Promise<void>((resolve) => (live = resolve));
  const subscriber = subscribeChannels({
    redisUrl: redis.redisUrl,
    publisher: redis.publisher,
    name: channel,
    purpose: 'mapping reload',
    logger,
    channels: sharded ? [] : [channel],
    sharded: sharded ? [channel] : [],
    onLive: () => live(),
    onLost: () => {},
    onMessage(ch, message) {
      if (ch !== channel) return;
      let requestId: unknown;
      try {
        requestId = (JSON.parse(message) as { requestId?: unknown }).requestId;
      } catch {
        return;
      }
      if (typeof requestId === 'string' && requestId.length <= 64) onRequest(requestId);
    },
  });
  return {
    name: 'mapping-reload-listener',
    ready,
    async close() {
      subscriber.close();
    },
  };
}
