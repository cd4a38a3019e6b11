import { expect } from 'vitest';
import { isCluster, masters } from '../../src/queues/redis.ts';
import { invalidationChannel } from '../../src/read-model/bus.ts';
import type { Services } from '../../src/services.ts';

/**
 * Closes, in Redis, the cache-invalidation subscriptions of these services' prefix (the test's
 * two API processes'), on every master of a cluster; they subscribe again by themselves. On one
 * server each process has one such connection; on a cluster one per master that owns one of
 * its sharded channels.
 */
export async function killSubscribers(services: Services): Promise<void> {
  const name = invalidationChannel(services.config.QUEUE_PREFIX);
  if (isCluster(services.redis) && services.redis.status !== 'ready') await services.redis.ping();
  let killed = 0;
  for (const server of masters(services.redis)) {
    const list = (await server.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
    const ids = list.split('\n').filter((l) => l.includes(` name=${name} `)).map((l) => /id=(\d+)/.exec(l)![1]!);
    for (const id of ids) await server.call('CLIENT', 'KILL', 'ID', id);
    killed += ids.length;
  }
  if (isCluster(services.redis)) expect(killed).toBeGreaterThanOrEqual(2);
  else expect(killed).toBe(2);
}
