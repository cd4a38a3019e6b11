import { expect } from 'vitest';
import { invalidationChannel } from '../../src/read-model/bus.ts';
import type { Services } from '../../src/services.ts';

/**
 * Closes, in Redis, the cache-invalidation subscriptions of these services' prefix (the test's
 * two API processes'); they reconnect by themselves.
 */
export async function killSubscribers(services: Services): Promise<void> {
  const name = invalidationChannel(services.config.QUEUE_PREFIX);
  const list = (await services.redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
  const ids = list.split('\n').filter((l) => l.includes(` name=${name} `)).map((l) => /id=(\d+)/.exec(l)![1]!);
  expect(ids.length).toBe(2);
  for (const id of ids) await services.redis.call('CLIENT', 'KILL', 'ID', id);
}
