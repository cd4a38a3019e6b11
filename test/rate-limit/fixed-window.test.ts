import { createRedisClient } from '../../src/queues/redis.ts';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createFixedWindowLimiter } from '../../src/rate-limit/fixed-window.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

describe('fixed-window limiter in Redis', () => {
  const clock = new ManualClock('2026-05-01T12:00:10.000Z');
  let t: TestServices;

  beforeAll(async () => {
    t = await createTestServices({ clock });
  });
  afterAll(() => t.cleanup());

  const key = () => `${t.services.config.QUEUE_PREFIX}:test:${randomUUID()}`;

  it('is atomic: 50 parallel hits against a limit of 10 let exactly 10 pass', async () => {
    const limiter = createFixedWindowLimiter(t.services.redis, clock, t.services.logger);
    const k = key();
    const results = await Promise.all(Array.from({ length: 50 }, () => limiter.hit([{ key: k, limit: 10, windowS: 60 }])));
    expect(results.filter((r) => r?.[0]?.allowed).length).toBe(10);
    // The admitted count 1..10; denied hits are no longer counted (they read the limit), and
    // Redis holds the 10 tokens handed out, not the 50 hits.
    const admitted = results.filter((r) => r?.[0]?.allowed).map((r) => r![0]!.count);
    expect(admitted.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(results.filter((r) => !r?.[0]?.allowed).every((r) => r?.[0]?.count === 10 && r[0].remaining === 0)).toBe(true);
    expect(await t.services.redis.get(`${k}:${Date.parse('2026-05-01T12:00:00.000Z')}`)).toBe('10');
  });

  it('holds across processes: two clients on the same Redis share the counter', async () => {
    const second = createRedisClient(t.services.redisUrl);
    try {
      // Connected first: a limiter fails open when Redis takes longer than 250 ms (a busy machine).
      await second.ping();
      const a = createFixedWindowLimiter(t.services.redis, clock, t.services.logger);
      const b = createFixedWindowLimiter(second, clock, t.services.logger);
      const k = key();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).hit([{ key: k, limit: 10, windowS: 60 }])));
      expect(results.filter((r) => r?.[0]?.allowed).length).toBe(10);
    } finally {
      second.disconnect();
    }
  });

  it('windows follow the injected clock: remaining and reset, then a fresh window', async () => {
    const limiter = createFixedWindowLimiter(t.services.redis, clock, t.services.logger);
    const k = key();
    clock.set('2026-05-01T12:00:10.000Z');
    const first = (await limiter.hit([{ key: k, limit: 3, windowS: 60 }]))![0]!;
    expect(first).toEqual({ count: 1, limit: 3, remaining: 2, resetS: 50, windowS: 60, allowed: true });
    await limiter.hit([{ key: k, limit: 3, windowS: 60 }]);
    await limiter.hit([{ key: k, limit: 3, windowS: 60 }]);
    clock.set('2026-05-01T12:00:59.500Z');
    expect((await limiter.hit([{ key: k, limit: 3, windowS: 60 }]))![0]).toMatchObject({ allowed: false, remaining: 0, resetS: 1 });
    clock.set('2026-05-01T12:01:00.000Z');
    expect((await limiter.hit([{ key: k, limit: 3, windowS: 60 }]))![0]).toMatchObject({ allowed: true, count: 1, resetS: 60 });
  });

  it('counts several keys with their own quotas and windows in one decision', async () => {
    const limiter = createFixedWindowLimiter(t.services.redis, clock, t.services.logger);
    const [a, b] = [key(), key()];
    await limiter.hit([{ key: a, limit: 1, windowS: 60 }]);
    const both = await limiter.hit([{ key: a, limit: 1, windowS: 60 }, { key: b, limit: 1, windowS: 60 }]);
    expect(both!.map((s) => s.allowed)).toEqual([false, true]);
    clock.set('2026-05-01T12:00:10.000Z');
    const mixed = await limiter.hit([{ key: key(), limit: 5, windowS: 60 }, { key: key(), limit: 2, windowS: 15 }]);
    expect(mixed!.map((s) => [s.remaining, s.resetS, s.windowS])).toEqual([[4, 50, 60], [1, 5, 15]]);
  });

  it('fails open, within its timeout, when Redis does not answer', async () => {
    const dead = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    dead.on('error', () => {});
    try {
      const limiter = createFixedWindowLimiter(dead, clock, t.services.logger);
      const started = Date.now();
      expect(await limiter.hit([{ key: key(), limit: 1, windowS: 60 }])).toBeNull();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(t.logs.some((l) => l.includes('rate limiter unavailable'))).toBe(true);
    } finally {
      dead.disconnect();
    }
  });
});
