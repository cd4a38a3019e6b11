/** Used when a 429 says nothing about how long to wait. */
export const DEFAULT_RETRY_AFTER_MS = 1000;

/** Longest a Retry-After is honoured; a longer one is cut (a broken header must not stop polling for days). */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * A Retry-After header (RFC 9110 section 10.2.3: delay-seconds or an HTTP date) as milliseconds
 * from `now`; DEFAULT_RETRY_AFTER_MS when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: Date): number {
  const v = header?.trim() ?? '';
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else if (v !== '' && !Number.isNaN(Date.parse(v))) ms = Date.parse(v) - now.getTime();
  else return DEFAULT_RETRY_AFTER_MS;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}
