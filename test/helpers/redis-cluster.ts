import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import { freePort } from './free-port.ts';

/** One redis-server of a local cluster. */
export interface ClusterNode {
  port: number;
  server: PrivateRedis;
  /** Its redis-server arguments, to start it again as it was. */
  args: string[];
}

export interface LocalRedisCluster {
  nodes: ClusterNode[];
  /** `127.0.0.1:port` of every node: what REDIS_CLUSTER_NODES takes. */
  seeds: string[];
  /** The node (by port) serving a slot as master now, as the cluster itself says. */
  masterOfSlot(slot: number): Promise<number>;
  /** Ports of the current masters. */
  masters(): Promise<number[]>;
  /** SIGKILLs a node (no shutdown, no last write): a crash. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again on its port, with its data and cluster config (it rejoins, as a replica if it was failed over). */
  restart(port: number): Promise<void>;
  /** Waits until every node that runs agrees the cluster is ok, every slot served, and every replica is in sync. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A Redis Cluster on this machine for a test run: `masters` masters with `replicas` replicas
 * each (default 3 and 1, six redis-server processes), on free ports (the cluster bus on a free
 * port of its own, Redis 7's cluster-port), created with `redis-cli --cluster create` as an
 * operator would. `nodeTimeoutMs` is cluster-node-timeout: how long a master may be silent
 * before its replica takes over (the failover time is about this plus one second).
 * Append-only files, fsync every second, noeviction: as production is advised to run.
 */
export async function startRedisCluster(opts: { masters?: number; replicas?: number; nodeTimeoutMs?: number } = {}): Promise<LocalRedisCluster> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicas ?? 1;
  const dir = mkdtempSync(join(tmpdir(), 'cvd-cluster-'));
  const nodes: ClusterNode[] = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await freePort();
      const bus = await freePort();
      const args = [
          '--cluster-enabled', 'yes',
          '--cluster-port', String(bus),
          '--cluster-config-file', join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout', String(opts.nodeTimeoutMs ?? 2000),
          '--dir', dir,
          '--dbfilename', `dump-${port}.rdb`,
          '--appendonly', 'yes',
          '--appendfilename', `appendonly-${port}.aof`,
          '--appenddirname', `aof-${port}`,
          '--appendfsync', 'everysec',
      ];
      nodes.push({ port, server: await startPrivateRedis({ port, args }), args });
    }
    const seeds = nodes.map((n) => `127.0.0.1:${n.port}`);
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...seeds, '--cluster-replicas', String(replicas), '--cluster-yes'], { encoding: 'utf8' });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}\n${create.stderr}`);
    const cluster = handle(nodes, seeds, dir);
    // A test process that dies (or is killed) leaves no redis-server behind.
    const killAll = () => nodes.forEach((n) => n.server.process.kill('SIGKILL'));
    process.once('exit', killAll);
    await cluster.waitHealthy(30_000);
    const stop = cluster.stop;
    cluster.stop = async () => {
      process.removeListener('exit', killAll);
      await stop();
    };
    return cluster;
  } catch (err) {
    await Promise.all(nodes.map((n) => n.server.stop()));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function ask<T>(port: number, use: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  r.on('error', () => {});
  try {
    await r.connect();
    return await use(r);
  } finally {
    r.disconnect();
  }
}

function handle(nodes: ClusterNode[], seeds: string[], dir: string): LocalRedisCluster {
  const running = () => nodes.filter((n) => n.server.process.exitCode === null && n.server.process.signalCode === null);
  const slotMap = async (): Promise<[number, number, number][]> => {
    for (const n of running()) {
      try {
        const slots = (await ask(n.port, (r) => r.call('CLUSTER', 'SLOTS'))) as [number, number, [string, number]][];
        return slots.map(([from, to, [, port]]) => [from, to, port]);
      } catch {
        // That node is gone or busy: ask the next.
      }
    }
    throw new Error('no node of the cluster answers');
  };
  return {
    nodes,
    seeds,
    async masterOfSlot(slot) {
      const range = (await slotMap()).find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no master serves slot ${slot}`);
      return range[2];
    },
    async masters() {
      return [...new Set((await slotMap()).map(([, , port]) => port))];
    },
    async waitHealthy(timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(
          running().map((n) =>
            ask(n.port, async (r) => {
              const info = (await r.call('CLUSTER', 'INFO')) as string;
              // A replica counts once it has synchronised with its master: a WAIT then has it.
              const replication = await r.info('replication');
              const replicaReady = !/role:slave/.test(replication) || (/master_link_status:up/.test(replication) && /master_sync_in_progress:0/.test(replication));
              return /cluster_state:ok/.test(info) && /cluster_slots_ok:16384/.test(info) && replicaReady;
            }).catch(() => false),
          ),
        );
        if (states.every(Boolean)) return;
        if (Date.now() > until) throw new Error(`the Redis Cluster did not become healthy within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async kill(port) {
      const node = nodes.find((n) => n.port === port)!;
      const exited = new Promise<void>((resolve) => node.server.process.once('exit', () => resolve()));
      node.server.process.kill('SIGKILL');
      await exited;
    },
    async restart(port) {
      const node = nodes.find((n) => n.port === port)!;
      node.server = await startPrivateRedis({ port, args: node.args });
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.server.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

