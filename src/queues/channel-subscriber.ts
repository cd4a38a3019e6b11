import { Redis, type Cluster } from 'ioredis';
import type { Logger } from '../logger.ts';
import { createRedisClient, isCluster, parseRedisAddress, type RedisClient } from './redis.ts';
import calculateSlot from 'cluster-key-slot';

/** What a process listens to (the cache invalidations, the mapping reload requests), and what it is told. */
export interface SubscriberOptions {
  redisUrl: string;
  /** Classic channels (SUBSCRIBE); on a cluster every node relays them. */
  channels: readonly string[];
  /** Sharded channels (SSUBSCRIBE, Redis 7), a cluster only: each on the master that owns its slot. */
  sharded: readonly string[];
  /** The client that publishes: on a cluster, its view of which master owns which slot. */
  publisher: RedisClient;
  /** Names the connections (CLIENT SETNAME), so an operator or a test can tell them apart. */
  name: string;
  /** What the subscription is for, as the log names it ("cache invalidation"). */
  purpose: string;
  logger: Logger;
  onMessage(channel: string, message: string): void;
  /** Every channel is subscribed (again): from now on no message is missed. */
  onLive(): void;
  /** A connection dropped: messages may be missed until onLive. */
  onLost(): void;
}

export interface ChannelSubscriber {
  close(): void;
}

/** Longest wait before subscribing again after a connection to a master dropped. */
const MAX_RETRY_MS = 2000;

/**
 * The subscriptions of one process. On one Redis server: one connection, which ioredis
 * reconnects, subscribing again at every `ready`. On a cluster: one plain connection per master
 * that owns one of the sharded channels (the first one also takes the classic channels), so the
 * process knows exactly when it is subscribed: any of them dropping (a master failing over, a
 * CLIENT KILL) is a loss, after which the whole set is built again from the cluster's current
 * slot map once the publisher's view is refreshed.
 */
export function subscribeChannels(opts: SubscriberOptions): ChannelSubscriber {
  if (isCluster(opts.publisher)) return clusterSubscriber(opts, opts.publisher);
  return serverSubscriber(opts);
}

function serverSubscriber(opts: SubscriberOptions): ChannelSubscriber {
  const subscriber = createRedisClient(opts.redisUrl, 'worker');
  let closed = false;
  void subscriber.client('SETNAME', opts.name).catch(() => undefined);
  subscriber.on('close', () => opts.onLost());
  subscriber.on('error', (err) => opts.logger.debug({ err: err.message }, `${opts.purpose} subscriber error`));
  subscriber.on('ready', () => {
    subscriber.subscribe(...opts.channels).then(
      () => {
        if (!closed) opts.onLive();
      },
      (err: Error) => opts.logger.warn({ err: err.message }, `${opts.purpose} subscribe failed`),
    );
  });
  subscriber.on('message', (channel: string, message: string) => opts.onMessage(channel, message));
  return {
    close() {
      closed = true;
      subscriber.disconnect();
    },
  };
}

function clusterSubscriber(opts: SubscriberOptions, cluster: Cluster): ChannelSubscriber {
  const address = parseRedisAddress(opts.redisUrl);
  let connections: Redis[] = [];
  let closed = false;
  let generation = 0;
  let retries = 0;
  let timer: NodeJS.Timeout | undefined;

  const drop = () => {
    for (const c of connections) {
      c.removeAllListeners('close');
      c.disconnect();
    }
    connections = [];
  };
  const rebuild = (delayMs: number) => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void build();
    }, delayMs);
    timer.unref();
  };
  const lost = () => {
    generation++;
    drop();
    opts.onLost();
    // The failed master's slots move to its replica: let the publisher's map catch up first.
    cluster.refreshSlotsCache(() => rebuild(Math.min(MAX_RETRY_MS, 100 * 2 ** retries++)));
  };

  /** The master (`host:port`) that owns a channel's slot, in the publisher's current map. */
  const ownerOf = (channel: string): string => {
    const owner = cluster.slots[calculateSlot(channel)]?.[0];
    if (!owner) throw new Error(`no master owns the slot of ${channel} yet`);
    return owner;
  };

  async function build(): Promise<void> {
    const mine = ++generation;
    drop();
    try {
      if (cluster.status !== 'ready') await cluster.ping();
      const byMaster = new Map<string, { sharded: string[]; classic: readonly string[] }>();
      for (const channel of opts.sharded) {
        const owner = ownerOf(channel);
        const entry = byMaster.get(owner) ?? { sharded: [], classic: [] };
        entry.sharded.push(channel);
        byMaster.set(owner, entry);
      }
      // Classic channels are relayed to every node: any connection will do, the first one's.
      if (opts.channels.length > 0) {
        const [first] = byMaster.keys();
        const node = first ?? ownerOf(opts.channels[0]!);
        byMaster.set(node, { sharded: byMaster.get(node)?.sharded ?? [], classic: opts.channels });
      }
      await Promise.all(
        [...byMaster].map(async ([nodeKey, channels]) => {
          const colon = nodeKey.lastIndexOf(':');
          const c = new Redis({ ...address.options, host: nodeKey.slice(0, colon), port: Number(nodeKey.slice(colon + 1)), connectionName: opts.name, retryStrategy: () => null, maxRetriesPerRequest: 1 });
          connections.push(c);
          c.on('error', (err) => opts.logger.debug({ err: err.message }, `${opts.purpose} subscriber error`));
          c.on('message', (channel: string, message: string) => opts.onMessage(channel, message));
          c.on('smessage', (channel: string, message: string) => opts.onMessage(channel, message));
          c.once('close', () => {
            if (mine === generation && !closed) lost();
          });
          // One SSUBSCRIBE per channel: the channels of one command must share a slot.
          for (const channel of channels.sharded) await c.ssubscribe(channel);
          if (channels.classic.length > 0) await c.subscribe(...channels.classic);
        }),
      );
      if (mine !== generation || closed) return;
      retries = 0;
      opts.onLive();
    } catch (err) {
      if (mine !== generation || closed) return;
      opts.logger.debug({ err: (err as Error).message }, `${opts.purpose} subscribe failed; tried again`);
      lost();
    }
  }

  void build();
  return {
    close() {
      closed = true;
      generation++;
      clearTimeout(timer);
      drop();
    },
  };
}
