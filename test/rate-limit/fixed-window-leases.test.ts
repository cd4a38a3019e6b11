import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { createFixedWindowLimiter, type Counter } from '../../src/rate-limit/fixed-window.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';

/**
 * The limiter's local leases (src/rate-limit/fixed-window.ts), against real Redis: the limit
 * holds across processes, most hits make no Redis call, budgets stay in their window. Redis
 * calls are counted with INFO commandstats, so this suite has a redis-server of its own (the
 * suite-wide one is shared with the other test files running in parallel).
 */
describe('fixed-window limiter leases', () => {
  const clock = new ManualClock('2026-05-01T12:00:10.000Z');
  const windowStart = Date.parse('2026-05-01T12:00:00.000Z');
  const logger = createLogger({ level: 'warn', pretty: false, destination: new Writable({ write: (_c, _e, cb) => cb() }) });
  let server: PrivateRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startPrivateRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  // One hash tag: counters of one call share a slot, as the service's keys do (src/queues/keys.ts).
  const key = () => `test:{leases}:${randomUUID()}`;

  /** Lua scripts Redis has run so far (the limiter's EVALSHA, or EVAL the first time). */
  async function luaCalls(): Promise<number> {
    const stats = await redis.info('commandstats');
    return [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  }

  it('holds across processes: two instances on two clients, hammered concurrently, admit exactly the limit', async () => {
    const clients = [new Redis(server.url), new Redis(server.url)];
    try {
      // Connected first: a limiter fails open when Redis takes longer than 250 ms (a busy machine).
      await Promise.all(clients.map((c) => c.ping()));
      const limiters = clients.map((c) => createFixedWindowLimiter(c, clock, logger));
      const counter: Counter = { key: key(), limit: 500, windowS: 60 };
      const admitted = [0, 0];
      // 8 concurrent workers per process, 100 hits each: 1,600 hits against a limit of 500.
      const worker = async (p: number) => {
        for (let i = 0; i < 100; i++) if ((await limiters[p]!.hit([counter]))?.[0]?.allowed) admitted[p]!++;
      };
      await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w % 2)));
      expect(admitted[0]! + admitted[1]!).toBe(500);
      expect(admitted[0]).toBeGreaterThan(0);
      expect(admitted[1]).toBeGreaterThan(0);
      expect(await redis.get(`${counter.key}:${windowStart}`)).toBe('500');
    } finally {
      for (const c of clients) c.disconnect();
    }
  });

  it('far from the limit, one Redis call serves many hits: 2,000 hits on a limit of 1e6 make 2 calls', async () => {
    const limiter = createFixedWindowLimiter(redis, clock, logger);
    const k = key();
    const before = await luaCalls();
    let last;
    for (let i = 0; i < 2000; i++) {
      last = (await limiter.hit([{ key: k, limit: 1_000_000, windowS: 60 }]))![0]!;
      expect(last.allowed).toBe(true);
    }
    expect(last).toMatchObject({ remaining: 998_000, count: 2000 });
    // Leases of MAX_LEASE (1000) tokens: the 1st and the 1,001st hit ask Redis, no other.
    expect((await luaCalls()) - before).toBe(2);
  });

  it('a new window starts without the old budget; ended windows are dropped', async () => {
    const limiter = createFixedWindowLimiter(redis, clock, logger);
    const k = key();
    const counter = { key: k, limit: 1000, windowS: 60 };
    clock.set('2026-05-01T12:00:10.000Z');
    const before = await luaCalls();
    expect((await limiter.hit([counter]))![0]).toMatchObject({ allowed: true, remaining: 999 });
    expect(await redis.get(`${k}:${windowStart}`)).toBe('15'); // floor(1000 / 64), 14 left locally
    clock.set('2026-05-01T12:01:00.000Z');
    expect((await limiter.hit([counter]))![0]).toMatchObject({ allowed: true, remaining: 999, resetS: 60 });
    expect(await redis.get(`${k}:${windowStart + 60_000}`)).toBe('15'); // its own lease
    expect((await luaCalls()) - before).toBe(2);
    // A probe, not something a real clock does: back in the first window, its 14 unused tokens
    // were dropped when it ended, so the hit leases again instead of using them.
    clock.set('2026-05-01T12:00:30.000Z');
    expect((await limiter.hit([counter]))![0]!.allowed).toBe(true);
    expect(await redis.get(`${k}:${windowStart}`)).toBe('30');
    clock.set('2026-05-01T12:00:10.000Z');
  });

  it("an answer that arrives after the next window started serves its own hit only, not the new window's hits", async () => {
    const limiter = createFixedWindowLimiter(redis, clock, logger);
    const k = key();
    const counter = { key: k, limit: 1000, windowS: 60 };
    clock.set('2026-05-01T12:00:59.000Z');
    const late = limiter.hit([counter]); // leases 15 in the first window; the answer is on its way
    clock.set('2026-05-01T12:01:00.000Z');
    const next = limiter.hit([counter]); // the new window's first hit leases its own 15
    expect((await late)![0]).toMatchObject({ allowed: true, resetS: 1 });
    expect((await next)![0]).toMatchObject({ allowed: true, remaining: 999, resetS: 60 });
    const before = await luaCalls();
    // The new window's 14 tokens serve 14 hits; the late lease's 14 unused ones serve none.
    for (let i = 0; i < 14; i++) expect((await limiter.hit([counter]))![0]!.allowed).toBe(true);
    expect((await luaCalls()) - before).toBe(0);
    expect((await limiter.hit([counter]))![0]!.allowed).toBe(true);
    expect((await luaCalls()) - before).toBe(1);
    expect(await redis.get(`${k}:${windowStart}`)).toBe('15');
    expect(await redis.get(`${k}:${windowStart + 60_000}`)).toBe('30');
    clock.set('2026-05-01T12:00:10.000Z');
  });

  it('in one process, remaining counts down by one per hit; over the limit it denies without a Redis call', async () => {
    const limiter = createFixedWindowLimiter(redis, clock, logger);
    const k = key();
    const before = await luaCalls();
    const states = [];
    for (let i = 0; i < 7; i++) states.push((await limiter.hit([{ key: k, limit: 5, windowS: 60 }]))![0]!);
    expect(states.map((s) => [s.allowed, s.remaining, s.count])).toEqual([
      [true, 4, 1],
      [true, 3, 2],
      [true, 2, 3],
      [true, 1, 4],
      [true, 0, 5],
      [false, 0, 5],
      [false, 0, 5],
    ]);
    expect(await redis.get(`${k}:${windowStart}`)).toBe('5');
    expect((await luaCalls()) - before).toBe(5);
  });

  it('remaining is exact in one process with a lease of many tokens, and shared by counters of one call', async () => {
    const limiter = createFixedWindowLimiter(redis, clock, logger);
    const [a, b] = [key(), key()];
    const before = await luaCalls();
    const remaining: number[][] = [];
    for (let i = 0; i < 20; i++) {
      const s = (await limiter.hit([{ key: a, limit: 600, windowS: 60 }, { key: b, limit: 200, windowS: 60 }]))!;
      remaining.push(s.map((x) => x.remaining));
    }
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => [599 - i, 199 - i]));
    // a leases 9 tokens at a time (calls at hits 1, 10, 19), b 3 then 2 (hits 1, 4, 7, 10, 12,
    // 14, 16, 18, 20); when both run out (hits 1 and 10) one call reserves both.
    expect((await luaCalls()) - before).toBe(10);
  });

  it('drops its budgets when Redis fails, so none outlives an outage', async () => {
    const client = new Redis(server.url, { maxRetriesPerRequest: 0 });
    client.on('error', () => {});
    try {
      const limiter = createFixedWindowLimiter(client, clock, logger);
      const [a, b] = [key(), key()];
      await limiter.hit([{ key: a, limit: 1000, windowS: 60 }]); // 15 leased, 14 left locally
      expect(await limiter.hit([{ key: a, limit: 1000, windowS: 60 }])).not.toBeNull(); // local, no call
      client.disconnect();
      expect(await limiter.hit([{ key: a, limit: 1000, windowS: 60 }, { key: b, limit: 1000, windowS: 60 }])).toBeNull();
      await client.connect();
      expect((await limiter.hit([{ key: a, limit: 1000, windowS: 60 }]))![0]!.allowed).toBe(true);
      // The 12 tokens left before the failure were not used: the hit leased again.
      expect(await redis.get(`${a}:${windowStart}`)).toBe('30');
    } finally {
      client.disconnect();
    }
  });
});
