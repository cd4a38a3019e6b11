import calculateSlot from 'cluster-key-slot';
import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from './redis.ts';

/** The job did not reach enough replicas in time: not acknowledged, so the sender repeats. */
export class ReplicationTimeoutError extends Error {
  constructor(reached: number, wanted: number, timeoutMs: number) {
    super(`the write reached ${reached} of ${wanted} replica(s) within ${timeoutMs} ms`);
    this.name = 'ReplicationTimeoutError';
  }
}

/**
 * The connection to the master that owns a key's slot: the one ioredis sent the key's commands
 * on (its pool holds one connection per node), so a WAIT sent on it covers them.
 */
export function masterOf(client: RedisClient, key: string): Redis {
  if (!isCluster(client)) return client;
  const nodeKey = client.slots[calculateSlot(key)]?.[0];
  const node = client.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === nodeKey);
  if (!node) throw new Error(`no connection to the master of slot ${calculateSlot(key)} (cluster topology changing)`);
  return node;
}

/**
 * Redis WAIT on the master that owns `key`: resolves once every write sent before on that
 * connection (the job just added) is on at least `replicas` replicas; throws
 * ReplicationTimeoutError when fewer had it after `timeoutMs`. WAIT blocks that one connection
 * meanwhile; on a healthy replication link it answers within a round trip.
 *
 * It narrows the window, not closes it: Redis replication stays asynchronous, and a failover
 * may still promote a replica that had not acknowledged (docs/operations.md).
 */
export async function awaitReplicas(client: RedisClient, key: string, replicas: number, timeoutMs: number): Promise<void> {
  const reached = Number(await masterOf(client, key).call('WAIT', replicas, timeoutMs));
  if (reached < replicas) throw new ReplicationTimeoutError(reached, replicas, timeoutMs);
}
