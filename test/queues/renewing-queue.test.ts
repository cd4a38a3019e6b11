import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createHarmonizeQueue } from '../../src/pipeline/queue.ts';
import { closeQueue } from '../../src/queues/close-queue.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import { renewingQueue } from '../../src/queues/renewing-queue.ts';

/**
 * A TCP hop in front of a real Redis that drops the first connection when it sends its second
 * INFO (BullMQ's version check, after ioredis's ready check) and stops listening for `downMs`:
 * Redis "goes away" in the middle of the queue's connection set-up, and refuses connections
 * long enough for ioredis to give the pending command up. This is the moment that left ingest
 * refusing every publish until a restart.
 */
async function flakyHop(redisPort: number, downMs: number): Promise<{ url: string; close(): void }> {
  let first = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const upstream = connect(redisPort, '127.0.0.1');
    const watched = first;
    first = false;
    let infos = 0;
    client.on('data', (chunk) => {
      infos += (chunk.toString('latin1').match(/\$4\r\ninfo\r\n/gi) ?? []).length;
      if (watched && infos >= 2) {
        server.close();
        for (const s of sockets) s.destroy();
        upstream.destroy();
        setTimeout(() => server.listen(port, '127.0.0.1'), downMs);
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

describe('renewingQueue: a producer queue whose connection set-up failed is replaced', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('BullMQ keeps the failed set-up for good; the renewing queue adds the job once Redis answers again', async () => {
    const hop = await flakyHop(redis.port, 1500);
    const config = loadConfig({ QUEUE_PREFIX: `rq${randomUUID().slice(0, 6)}`, SIMULATOR: 'off', DEMO_SEED: 'false' });
    const queue = renewingQueue(() => createHarmonizeQueue(config, hop.url));
    const first = queue.current();
    try {
      await expect(first.waitUntilReady()).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 2000)); // Redis reachable again
      // The queue BullMQ set up first stays broken although Redis answers (the reason for the helper).
      await expect(first.add('batch', { n: 1 })).rejects.toThrow();
      const job = await queue.current().add('batch', { n: 2 });
      expect(queue.current()).not.toBe(first);
      expect(await queue.current().getJobCounts('wait')).toMatchObject({ wait: 1 });
      expect(job.data).toEqual({ n: 2 });
      // The dead queue's connection was closed when it was replaced: Redis sees the new queue's
      // connection (through the hop) and this check's own, nothing else.
      const check = new Redis(redis.url);
      try {
        const clients = async () => ((await check.call('CLIENT', 'LIST')) as string).trim().split('\n').length;
        for (let i = 0; i < 50 && (await clients()) > 2; i++) await new Promise((r) => setTimeout(r, 20));
        expect(await clients()).toBe(2);
      } finally {
        check.disconnect();
      }
    } finally {
      await queue.close();
      await closeQueue(first).catch(() => undefined);
      hop.close();
    }
  }, 20_000);
});
