import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/**
 * A Redis that accepts connections but stops answering (paused, swapping, stuck in a long
 * command) must not hold requests: a producer's or a client's command fails after this long.
 * Not for workers, whose blocking commands wait by design.
 */
const COMMAND_TIMEOUT_MS = 2000;

/** One Redis server, or a Redis Cluster: every connection of the service is one of the two. */
export type RedisClient = Redis | Cluster;

export type RedisPurpose = 'producer' | 'worker' | 'client';

/**
 * Where Redis is, as one string that every part passes around (Services.redisUrl): a Redis URL
 * (`redis://host:port/db`, `rediss://` for TLS), or a Redis Cluster's seed nodes in the same
 * form with several hosts, the way MongoDB and PostgreSQL connection strings name a replica
 * set: `redis+cluster://[user:password@]host:port,host:port` (`rediss+cluster://` for TLS).
 * {@link redisAddressOf} builds it from the settings.
 */
export type RedisAddress =
  | { kind: 'single'; options: RedisOptions }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; options: RedisOptions };

const CLUSTER_SCHEMES = new Set(['redis+cluster:', 'rediss+cluster:']);

/** The Redis address of the settings: REDIS_CLUSTER_NODES, else REDIS_URL; undefined: neither (a private Redis). */
export function redisAddressOf(config: { REDIS_URL: string | undefined; REDIS_CLUSTER_NODES: readonly string[] | undefined }): string | undefined {
  if (config.REDIS_CLUSTER_NODES !== undefined) return clusterAddress(config.REDIS_CLUSTER_NODES);
  return config.REDIS_URL;
}

/**
 * The address of a cluster from its seeds, each `host:port` or a `redis[s]://[user:password@]host:port`
 * URL (src/config.ts has checked them: one scheme and one set of credentials for all, database 0).
 */
export function clusterAddress(seeds: readonly string[]): string {
  let scheme = 'redis';
  let auth = '';
  const hosts = seeds.map((seed) => {
    if (!seed.includes('://')) return seed;
    const u = new URL(seed);
    scheme = u.protocol.slice(0, -1);
    if (u.username || u.password) auth = `${u.username}${u.password ? `:${u.password}` : ''}@`;
    return u.host;
  });
  return `${scheme}+cluster://${auth}${hosts.join(',')}`;
}

/** `host:port` (IPv6 in brackets) → its parts; the port defaults to 6379. */
function hostPort(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a host:port: "${text}"`);
  return { host: m[1] ?? m[2]!, port: Number(m[3] ?? 6379) };
}

export function parseRedisAddress(address: string): RedisAddress {
  const scheme = address.slice(0, address.indexOf(':') + 1);
  if (CLUSTER_SCHEMES.has(scheme)) {
    const rest = address.slice(scheme.length + 2);
    const at = rest.lastIndexOf('@');
    const auth = at < 0 ? '' : rest.slice(0, at);
    const hosts = (at < 0 ? rest : rest.slice(at + 1)).replace(/\/.*$/, '');
    const [user = '', password] = auth === '' ? [] : auth.split(/:(.*)/s);
    const options: RedisOptions = {
      ...(user ? { username: decodeURIComponent(user) } : {}),
      ...(password ? { password: decodeURIComponent(password) } : {}),
      ...(scheme === 'rediss+cluster:' ? { tls: {} } : {}),
    };
    return { kind: 'cluster', nodes: hosts.split(',').filter(Boolean).map(hostPort), options };
  }
  const u = new URL(address);
  return {
    kind: 'single',
    options: {
      host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(u.port || 6379),
      db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  };
}

/**
 * What each purpose's commands do when Redis is down or hung, following BullMQ's production
 * advice: producers fail fast (so HTTP ingest answers 503 and an MQTT publish goes without
 * PUBACK, instead of hanging), workers retry forever, clients fail after one retry.
 */
function purposeOptions(purpose: RedisPurpose): RedisOptions {
  switch (purpose) {
    case 'producer':
      return { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS };
    case 'worker':
      return { maxRetriesPerRequest: null };
    case 'client':
      return { maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS };
  }
}

/** ioredis options of one Redis server for a purpose (a single-server address only). */
export function redisOptions(url: string, purpose: RedisPurpose): RedisOptions {
  const address = parseRedisAddress(url);
  if (address.kind === 'cluster') throw new Error('redisOptions: a Redis Cluster address has no single-server options');
  return { ...address.options, ...purposeOptions(purpose) };
}

/**
 * ioredis Cluster options for a purpose. The offline queue is a cluster-level option (node
 * connections always queue); the rest applies to each node's connection. Commands sent while
 * a master is failing over are retried by ioredis (retryDelayOnFailover, up to maxRedirections
 * times, about 1.6 s in all) before they fail; a producer's then fails like on a lone Redis.
 */
export function clusterOptions(address: Extract<RedisAddress, { kind: 'cluster' }>, purpose: RedisPurpose, extra: Partial<RedisOptions> = {}): ClusterOptions {
  const { enableOfflineQueue, ...nodeOptions } = purposeOptions(purpose);
  const { lazyConnect, retryStrategy, ...nodeExtra } = extra;
  return {
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    // A caller's retry strategy (a CLI's single attempt) is the whole cluster's.
    clusterRetryStrategy: retryStrategy ?? ((times: number) => Math.min(250 * times, 2000)),
    // No CLUSTER INFO check before `ready`: a client connecting while a master fails over
    // (cluster_state:fail) reconnects then, and the promise of its connect() never settles, so
    // a BullMQ worker started at that moment never starts (seen in test/cluster/failover.test.ts).
    // Without it, commands meet CLUSTERDOWN and are retried like any during a failover.
    enableReadyCheck: false,
    redisOptions: { ...address.options, ...nodeOptions, ...nodeExtra },
  };
}

/**
 * A connection for a purpose, to one Redis server or to a cluster, from a Redis address.
 * `extra` overrides ioredis options (e.g. a CLI's one connection attempt).
 */
export function createRedisClient(address: string, purpose: RedisPurpose = 'client', extra: Partial<RedisOptions> = {}): RedisClient {
  const parsed = parseRedisAddress(address);
  if (parsed.kind === 'single') return new Redis({ ...parsed.options, ...purposeOptions(purpose), ...extra });
  return new Cluster(parsed.nodes, clusterOptions(parsed, purpose, extra));
}

export function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}

/** Whether the address names a cluster. */
export function isClusterAddress(address: string): boolean {
  return CLUSTER_SCHEMES.has(address.slice(0, address.indexOf(':') + 1));
}

/**
 * The connections to every master: the cluster's (as ioredis currently knows them), or the one
 * server. What must see the whole keyspace (the erasure's scan) or every server's settings
 * (the eviction policy) runs on each.
 */
export function masters(client: RedisClient): Redis[] {
  return isCluster(client) ? client.nodes('master') : [client];
}
