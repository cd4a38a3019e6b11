import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ManualClock } from '../../../src/clock.ts';
import { createApiRateLimiter } from '../../../src/transports/poll/rate-limiter.ts';

/* The request rate to a polled API, shared through the suite's real Redis by two limiters, as
   two worker processes share it; time comes from a ManualClock. */
describe('the polled API rate limiter', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(inject('redisUrl'));
  });
  afterAll(() => redis.disconnect());

  const pair = (clock: ManualClock, maxRequestsPerS: number) => {
    const opts = { redis, clock, prefix: `t${randomUUID().slice(0, 8)}`, manufacturer: 'kestrel', maxRequestsPerS };
    return [createApiRateLimiter(opts), createApiRateLimiter(opts)] as const;
  };

  it('spaces requests 1/maxRequestsPerS apart across both processes, and sends a far slot back instead of holding it', async () => {
    const clock = new ManualClock('2026-11-25T10:00:00Z');
    const [a, b] = pair(clock, 5);
    const waits = [];
    for (const l of [a, b, a, b, a]) waits.push(await l.acquire(1000));
    expect(waits).toEqual([0, 200, 400, 600, 800].map((waitMs) => ({ granted: true, waitMs })));
    // The sixth is a second away: more than this caller will hold a worker for. Nothing reserved.
    expect(await b.acquire(500)).toEqual({ granted: false, waitMs: 1000 });
    expect(await a.acquire(500)).toEqual({ granted: false, waitMs: 1000 });
    clock.advance(1000);
    expect(await a.acquire(500)).toEqual({ granted: true, waitMs: 0 });
    expect(await b.acquire(500)).toEqual({ granted: true, waitMs: 200 });
  });

  it('a 429 seen by one process pauses the other until Retry-After has passed; a shorter one later does not shorten it', async () => {
    const clock = new ManualClock('2026-11-25T10:00:00Z');
    const [a, b] = pair(clock, 2);
    expect(await a.acquire(0)).toEqual({ granted: true, waitMs: 0 });
    await a.pause(5000);
    await b.pause(1000);
    expect(await b.acquire(1000)).toEqual({ granted: false, waitMs: 5000 });
    expect(await b.pausedMs()).toBe(5000);
    clock.advance(4000);
    expect(await b.acquire(1000)).toEqual({ granted: true, waitMs: 1000 });
    clock.advance(1000);
    expect(await a.pausedMs()).toBe(0);
    // The slot after the one just reserved (500 ms apart at 2 requests/s).
    expect(await a.acquire(1000)).toEqual({ granted: true, waitMs: 500 });
  });

  it('half a request per second means one every two seconds', async () => {
    const clock = new ManualClock('2026-11-25T10:00:00Z');
    const [a] = pair(clock, 0.5);
    expect(await a.acquire(5000)).toEqual({ granted: true, waitMs: 0 });
    expect(await a.acquire(5000)).toEqual({ granted: true, waitMs: 2000 });
  });
});
