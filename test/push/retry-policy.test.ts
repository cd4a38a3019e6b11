import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JITTER, nextDelayMs, parseRetryAfter } from '../../src/push/deliver/retry-policy.ts';

const SVIX = [5, 300, 1800, 7200, 18000, 36000, 36000];

describe('webhook retry schedule', () => {
  it('stays within each step ± jitter and stops when the schedule is used up', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: SVIX.length }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const d = nextDelayMs(SVIX, n, null, () => r)!;
        const base = SVIX[n - 1]! * 1000;
        expect(d).toBeGreaterThanOrEqual(Math.floor(base * (1 - JITTER)));
        expect(d).toBeLessThanOrEqual(Math.ceil(base * (1 + JITTER)));
      }),
    );
    expect(nextDelayMs(SVIX, SVIX.length + 1)).toBeNull();
    expect(nextDelayMs([], 1)).toBeNull();
  });

  it('spans about a day by default', () => {
    const total = SVIX.reduce((a, b) => a + b, 0);
    expect(total / 3600).toBeGreaterThan(20);
    expect(total / 3600).toBeLessThan(30);
  });

  it('honours a longer Retry-After, capped at the longest step, and ignores a shorter one', () => {
    const mid = () => 0.5;
    expect(nextDelayMs(SVIX, 1, 60_000, mid)).toBe(60_000);
    expect(nextDelayMs(SVIX, 1, 1_000, mid)).toBe(5_000);
    expect(nextDelayMs(SVIX, 1, 10 * 86_400_000, mid)).toBe(36_000_000);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 01 Jun 2026 12:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Mon, 01 Jun 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter(['7'], now)).toBe(7_000);
  });
});
