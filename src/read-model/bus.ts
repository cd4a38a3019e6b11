import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import { INVALIDATION_BROADCAST, INVALIDATION_DATA, INVALIDATION_SHARDS } from '../queues/keys.ts';
import { partitionOf } from '../queues/partitions.ts';
import { isCluster, type RedisClient } from '../queues/redis.ts';
import { subscribeChannels } from '../queues/channel-subscriber.ts';
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
   * True while this process holds a read model and is subscribed to every channel: only then
   * may the caches be used, because only then does every other process's write reach them.
   */
  readonly live: boolean;
  /**
   * Invalidates this process's caches at once, then tells the other processes through Redis,
   * and resolves when the message came back to this process's own subscription (at most
   * ECHO_TIMEOUT_MS): Redis writes a message to all its subscribers together, so by then every
   * other process has it on its socket, ahead of any request a client sends after this write's
   * answer. A process not subscribed to the channel (no read model) resolves when Redis has
   * taken the message. Never rejects: the write it follows is already committed, so a failure is
   * logged and the other processes' entries age out (READ_CACHE_MAX_AGE_MS).
   */
  publish(inv: Invalidation): Promise<void>;
  /** Messages and bytes this process received from others (its own echoes not counted). */
  received(): { messages: number; bytes: number };
  close(): Promise<void>;
}

/** At most one "publish failed" error per this interval, so an outage does not flood the log. */
const WARN_INTERVAL_MS = 10_000;

/**
 * The name of one installation's invalidation connections (CLIENT SETNAME) and of its broadcast
 * channel, which carries erasures to every process.
 */
export function invalidationChannel(queuePrefix: string): string {
  return INVALIDATION_BROADCAST.channel(queuePrefix);
}

/** A message on a channel: its origin (a process, and its own sequence number) and the text. */
function invalidationMessage(origin: string, n: number, text: string): string {
  return `${origin}:${n} ${text}`;
}

/** ioredis states in which a command would wait for a reconnect that may not come soon. */
const LOST = new Set(['reconnecting', 'close', 'end']);
/** Longest a publish waits for its own message to come back. */
export const ECHO_TIMEOUT_MS = 1000;

/**
 * Cache invalidation between processes over Redis pub/sub: every process publishes what its
 * store writes made stale, and processes that hold a read model (the api role, `readModel`)
 * drop what others' writes made stale.
 *
 * Two kinds of channel, so that the traffic does not grow with processes × ingest:
 * - the read-model channels carry what only a read model needs (data written, keys, access);
 *   only processes with a read model subscribe. On one Redis it is one channel; on a cluster,
 *   INVALIDATION_SHARDS sharded channels (SPUBLISH, Redis 7), a message going to the one its
 *   text hashes to: a sharded message stays within the shard that owns the channel, where a
 *   classic one is relayed to every node of the cluster.
 * - the broadcast channel carries erasures, which every process must hear (it forgets the VIN
 *   wherever it keeps it); they are rare.
 *
 * Pub/sub delivers only while connected, so the caches are used only while every subscription
 * is live: when one drops, everything cached is dropped and reads go to the store; when all are
 * back, caching resumes from empty (messages missed meanwhile no longer matter). The same design
 * as Redis's own server-assisted client-side caching.
 */
export function createInvalidationBus(opts: {
  redisUrl: string;
  publisher: RedisClient;
  prefix: string;
  /** This process holds a read model (or must see its writes echoed, as the CLI): it subscribes to the read-model channels. */
  readModel: boolean;
  logger: Logger;
  pseudonym: (vin: string) => string;
  target: InvalidationTarget;
}): InvalidationBus {
  const { publisher, logger, target, prefix } = opts;
  const cluster = isCluster(publisher);
  const broadcast = INVALIDATION_BROADCAST.channel(prefix);
  const dataChannels = cluster ? Array.from({ length: INVALIDATION_SHARDS }, (_, i) => INVALIDATION_DATA.channel(prefix, i)) : [INVALIDATION_DATA.channel(prefix, null)];
  let subscribed = false;
  let closed = false;
  let lastWarn = 0;
  const counts = { messages: 0, bytes: 0 };
  // Messages carry their origin, so this process recognises its own when they come back.
  const origin = randomUUID();
  let seq = 0;
  const awaitingEcho = new Map<number, () => void>();
  const releaseEchoes = () => {
    for (const release of awaitingEcho.values()) release();
    awaitingEcho.clear();
  };

  const subscriber = subscribeChannels({
    redisUrl: opts.redisUrl,
    publisher,
    name: broadcast,
    purpose: 'cache invalidation',
    logger,
    channels: opts.readModel && !cluster ? [broadcast, ...dataChannels] : [broadcast],
    sharded: opts.readModel && cluster ? dataChannels : [],
    onLost() {
      if (subscribed && opts.readModel) logger.warn('cache invalidation channel lost: delivery reads go to the store until it is back');
      subscribed = false;
      target.clear();
      releaseEchoes();
    },
    onLive() {
      if (closed) return;
      target.clear();
      subscribed = true;
    },
    onMessage(_channel, message) {
      const { from, n, text } = splitOrigin(message);
      if (from === origin) {
        awaitingEcho.get(n)?.();
        awaitingEcho.delete(n);
        return; // applied locally when published
      }
      counts.messages++;
      counts.bytes += Buffer.byteLength(message);
      target.applyReceived(decodeInvalidation(text));
    },
  });

  /** Where a message goes: erasures to every process, the rest to the read models (by hash of the text on a cluster). */
  function route(inv: Invalidation, text: string): { channel: string; sharded: boolean; echoes: boolean } {
    if (inv.kind === 'erased') return { channel: broadcast, sharded: false, echoes: subscribed };
    const channel = dataChannels[partitionOf(text, dataChannels.length)]!;
    return { channel, sharded: cluster, echoes: subscribed && opts.readModel };
  }

  return {
    get live() {
      return subscribed && opts.readModel;
    },
    received: () => ({ ...counts }),
    async publish(inv) {
      // Encoded first: encoding pseudonymises VINs, which must not bring back into the memo a
      // VIN that applying an erasure just made this process forget.
      const text = encodeInvalidation(inv, opts.pseudonym);
      target.apply(inv);
      const n = ++seq;
      const to = route(inv, text);
      try {
        // Connection lost: the command would only wait for a reconnect (up to its timeout) and
        // hold the write's answer meanwhile; the outcome is the same as a failed publish. (While
        // it first connects, the command waits in ioredis's queue and goes out once connected.)
        if (LOST.has(publisher.status)) throw new Error(`redis connection is ${publisher.status}`);
        const echoed = to.echoes ? waitForEcho(n) : Promise.resolve();
        const message = invalidationMessage(origin, n, text);
        await (to.sharded ? publisher.spublish(to.channel, message) : publisher.publish(to.channel, message));
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
      subscribed = false;
      target.clear();
      releaseEchoes();
      subscriber.close();
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
