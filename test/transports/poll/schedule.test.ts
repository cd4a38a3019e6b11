import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_AFTER_MS, retryAfterMs } from '../../../src/transports/poll/retry-after.ts';
import { backoffMs, nextPoll } from '../../../src/transports/poll/schedule.ts';
import type { PollJob } from '../../../src/queues/poll-job.ts';

const settings = { intervalMs: 60_000, backoffBaseMs: 1000, backoffMaxMs: 300_000 };
const job: PollJob = { manufacturer: 'kestrel', vin: 'KESTRELV1N0000001', cursor: 'k1.100.0', failures: 0 };

describe('when a vehicle is polled next', () => {
  it('a page moves the cursor on: at once when more is waiting, after the interval when caught up', () => {
    expect(nextPoll(job, { kind: 'page', text: '{}', nextCursor: 'k1.101.3', hasMore: true, signals: 100 }, settings)).toEqual({ delayMs: 0, job: { ...job, cursor: 'k1.101.3' } });
    expect(nextPoll({ ...job, failures: 3 }, { kind: 'page', text: '{}', nextCursor: 'k1.102.0', hasMore: false, signals: 7 }, settings)).toEqual({
      delayMs: 60_000,
      job: { ...job, cursor: 'k1.102.0', failures: 0 },
    });
  });

  it('failures keep the cursor and back off exponentially up to the cap', () => {
    let state = job;
    const delays = [];
    for (let i = 0; i < 12; i++) {
      const next = nextPoll(state, { kind: 'failed', reason: 'the API answered 503' }, settings);
      expect(next.job.cursor).toBe('k1.100.0');
      delays.push(next.delayMs);
      state = next.job;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000, 300000]);
    expect(backoffMs(10_000, settings)).toBe(300_000);
  });

  it('a wait (429 or our own rate limit) keeps everything and comes back when told; a 404 is asked again after the interval', () => {
    expect(nextPoll({ ...job, failures: 2 }, { kind: 'wait', ms: 7000 }, settings)).toEqual({ delayMs: 7000, job: { ...job, failures: 2 } });
    expect(nextPoll({ ...job, failures: 2 }, { kind: 'not-shared' }, settings)).toEqual({ delayMs: 60_000, job });
  });

  it('reads Retry-After as seconds or an HTTP date, and falls back when it is missing or broken', () => {
    const now = new Date('2026-11-25T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Wed, 25 Nov 2026 10:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs(null, now)).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(retryAfterMs('soon', now)).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(retryAfterMs('999999', now)).toBe(3_600_000);
  });
});
