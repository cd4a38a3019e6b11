/**
 * When the next webhook attempt is due, by the answer's status code and the attempts made. The schedule comes from
 * PUSH_RETRY_SCHEDULE_S (Svix's default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, about a
 * day in all); each delay gets ±10 % jitter so a recovering receiver is not hit by every
 * retry at once. A receiver's Retry-After is honoured when it asks for more time, capped at
 * the schedule's longest step so a hostile header cannot park a delivery forever.
 */
export const JITTER = 0.1;

/**
 * The delay before the next attempt, in ms, after `attemptsMade` attempts (1 after the first),
 * or null when the schedule is used up and the delivery is dead.
 */
export function nextDelayMs(
  scheduleSeconds: readonly number[],
  attemptsMade: number,
  retryAfterMs: number | null = null,
  random: () => number = Math.random,
): number | null {
  const step = scheduleSeconds[attemptsMade - 1];
  if (step === undefined) return null;
  const base = step * 1000;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  if (retryAfterMs === null || retryAfterMs <= jittered) return jittered;
  const cap = Math.max(...scheduleSeconds) * 1000;
  return Math.max(jittered, Math.min(retryAfterMs, cap));
}

/** Parses Retry-After (delta seconds or an HTTP date) into ms from `now`; null when absent or invalid. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
