import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { createRedisClient } from '../queues/redis.ts';
import type { Running } from '../running.ts';
import type { ReloadOutcome } from './reloader.ts';

/**
 * How every process of an installation reloads its mappings at once: the reload command (CLI
 * or console) publishes on one Redis channel, every process reloads from its own disk and
 * appends its outcome to one Redis list, which the command waits on and the console shows.
 */
export const reloadChannel = (prefix: string) => `${prefix}:mappings:reload`;
const outcomesKey = (prefix: string) => `${prefix}:mappings:reloads`;
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

export async function recordOutcome(redis: Pick<Redis, 'multi'>, prefix: string, outcome: ProcessOutcome): Promise<void> {
  const key = outcomesKey(prefix);
  await redis.multi().lpush(key, JSON.stringify(outcome)).ltrim(key, 0, KEPT - 1).expire(key, KEPT_S).exec();
}

/** The newest outcomes first, of every process. */
export async function recentOutcomes(redis: Pick<Redis, 'lrange'>, prefix: string, count = 20): Promise<ProcessOutcome[]> {
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
export async function requestReload(redis: Pick<Redis, 'publish' | 'lrange'>, prefix: string, opts: { waitMs: number; pollMs?: number }): Promise<ReloadRequest> {
  const requestId = randomUUID();
  const processes = await redis.publish(reloadChannel(prefix), JSON.stringify({ requestId }));
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
 * Subscribes this process to reload requests: `onRequest` runs for each (one Redis connection
 * of its own, as a subscriber must). `ready` resolves once subscribed, so that a request
 * published after it reaches this process; the start does not wait for it (Redis may be down).
 */
export function listenForReloads(redisUrl: string, prefix: string, logger: Logger, onRequest: (requestId: string) => void): Running & { ready: Promise<void> } {
  const subscriber = createRedisClient(redisUrl, 'worker');
  const channel = reloadChannel(prefix);
  subscriber.on('error', (err) => logger.debug({ err: err.message }, 'mapping reload subscriber error'));
  subscriber.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    let requestId: unknown;
    try {
      requestId = (JSON.parse(message) as { requestId?: unknown }).requestId;
    } catch {
      return;
    }
    if (typeof requestId === 'string' && requestId.length <= 64) onRequest(requestId);
  });
  // ioredis subscribes again by itself after a reconnection.
  const ready = subscriber.subscribe(channel).then(() => undefined);
  ready.catch((err: Error) => logger.warn({ err: err.message }, 'not listening for mapping reloads'));
  return {
    name: 'mapping-reload-listener',
    ready,
    async close() {
      subscriber.disconnect();
    },
  };
}
