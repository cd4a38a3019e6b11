import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import { createRedisClient } from '../queues/redis.ts';
import { decodeInvalidation, encodeInvalidation, type Invalidation, type ReceivedInvalidation } from './invalidation.ts';

/** What the bus drives: the read model's caches. */
export interface InvalidationTarget {
  apply(inv: Invalidation): void;
  applyReceived(inv: ReceivedInvalidation): void;
  /** The channel was lost, (re)established or closed: messages may have been missed. */
  clear(): void;
}

export interface InvalidationBus {
  /**
   * True while this process is subscribed: only then may the caches be used, because only
   * then does every other process's write reach them.
   */
  readonly live: boolean;
  /**
   * Invalidates this process's caches at once, then tells every other process through Redis,
   * and resolves when the message came back to this process's own subscription (at most
   * ECHO_TIMEOUT_MS): Redis writes a message to all its subscribers together, so by then every
   * other process has it on its socket, ahead of any request a client sends after this write's
   * answer. Never rejects: the write it follows is already committed, so a failure is logged
   * and the other processes' entries age out (READ_CACHE_MAX_AGE_MS).
   */
  publish(inv: Invalidation): Promise<void>;
  close(): Promise<void>;
}

/** At most one "publish failed" error per this interval, so an outage does not flood the log. */
const WARN_INTERVAL_MS = 10_000;
/** The Redis channel of one installation's invalidations. */
export function invalidationChannel(queuePrefix: string): string {
  return `${queuePrefix}:cache-invalidation`;
}

/** A message on the channel: its origin (a process, and its own sequence number) and the text. */
function invalidationMessage(origin: string, n: number, text: string): string {
  return `${origin}:${n} ${text}`;
}

/** ioredis states in which a command would wait for a reconnect that may not come soon. */
const LOST = new Set(['reconnecting', 'close', 'end']);
/** Longest a publish waits for its own message to come back. */
export const ECHO_TIMEOUT_MS = 1000;

/**
 * Cache invalidation between processes over one Redis pub/sub channel: every process
 * publishes what its store writes made stale and drops what others' writes made stale.
 *
 * Pub/sub delivers only while connected, so the caches are used only while the subscription is
 * live: when the connection drops, everything cached is dropped and reads go to the store;
 * when it is back and subscribed again, caching resumes from empty (messages missed meanwhile
 * no longer matter). The same design as Redis's own server-assisted client-side caching.
 */
export function createInvalidationBus(opts: {
  redisUrl: string;
  publisher: Redis;
  channel: string;
  logger: Logger;
  pseudonym: (vin: string) => string;
  target: InvalidationTarget;
}): InvalidationBus {
  const { publisher, channel, logger, target } = opts;
  const subscriber = createRedisClient(opts.redisUrl, 'worker');
  // Named after the channel, so an operator (or a test) can tell these connections apart.
  void subscriber.client('SETNAME', channel).catch(() => undefined);
  let live = false;
  let closed = false;
  let lastWarn = 0;
  // Messages carry their origin, so this process recognises its own when they come back.
  const origin = randomUUID();
  let seq = 0;
  const awaitingEcho = new Map<number, () => void>();
  const releaseEchoes = () => {
    for (const release of awaitingEcho.values()) release();
    awaitingEcho.clear();
  };

  const lose = () => {
    if (live) logger.warn('cache invalidation channel lost: delivery reads go to the store until it is back');
    live = false;
    target.clear();
    releaseEchoes();
  };
  subscriber.on('close', lose);
  subscriber.on('error', (err) => logger.debug({ err: err.message }, 'cache invalidation subscriber error'));
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => {
        if (closed) return;
        target.clear();
        live = true;
      },
      (err: Error) => logger.warn({ err: err.message }, 'cache invalidation subscribe failed'),
    );
  });
  subscriber.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    const { from, n, text } = splitOrigin(message);
    if (from === origin) {
      awaitingEcho.get(n)?.();
      awaitingEcho.delete(n);
      return; // applied locally when published
    }
    target.applyReceived(decodeInvalidation(text));
  });

  return {
    get live() {
      return live;
    },
    async publish(inv) {
      // Encoded first: encoding pseudonymises VINs, which must not bring back into the memo a
      // VIN that applying an erasure just made this process forget.
      const text = encodeInvalidation(inv, opts.pseudonym);
      target.apply(inv);
      const n = ++seq;
      try {
        // Connection lost: the command would only wait for a reconnect (up to its timeout) and
        // hold the write's answer meanwhile; the outcome is the same as a failed publish. (While
        // it first connects, the command waits in ioredis's queue and goes out once connected.)
        if (LOST.has(publisher.status)) throw new Error(`redis connection is ${publisher.status}`);
        const echoed = live ? waitForEcho(n) : Promise.resolve();
        await publisher.publish(channel, invalidationMessage(origin, n, text));
        await echoed;
      } catch (err) {
        awaitingEcho.delete(n);
        if (Date.now() - lastWarn > WARN_INTERVAL_MS) {
          lastWarn = Date.now();
          logger.error({ err: (err as Error).message }, 'cache invalidation publish failed: other processes keep cached answers until they age out');
        }
      }
    },
    async close() {
      closed = true;
      live = false;
      target.clear();
      releaseEchoes();
      subscriber.disconnect();
    },
  };

  function waitForEcho(n: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        awaitingEcho.delete(n);
        resolve();
      }, ECHO_TIMEOUT_MS);
      timer.unref();
      awaitingEcho.set(n, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** `<origin>:<n> <text>` → its parts; a message without them has no origin. */
function splitOrigin(message: string): { from: string; n: number; text: string } {
  const space = message.indexOf(' ');
  const head = space < 0 ? message : message.slice(0, space);
  const colon = head.lastIndexOf(':');
  if (colon < 0) return { from: '', n: 0, text: message };
  return { from: head.slice(0, colon), n: Number(head.slice(colon + 1)), text: space < 0 ? '' : message.slice(space + 1) };
}
