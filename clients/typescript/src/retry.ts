/**
 * fetch with retries on 429 Too Many Requests (and 503 with Retry-After), waiting what the
 * service's `Retry-After` says (seconds or an HTTP date). Bounded: at most `retries` more tries,
 * and never a wait longer than `maxDelayMs` — such an answer is returned as it is, for the caller
 * to decide.
 */
export interface RetryOptions {
  /** Further tries after the first (default 3). */
  retries?: number;
  /** The longest wait accepted (default 60 s). */
  maxDelayMs?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (info: { status: number; attempt: number; delayMs: number }) => void;
  /** Replaceable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Milliseconds to wait from a Retry-After value; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export async function fetchWithRetry(doFetch: typeof fetch, url: string, init: RequestInit, opts: RetryOptions = {}): Promise<Response> {
  const retries = opts.retries ?? 3;
  const maxDelayMs = opts.maxDelayMs ?? 60_000;
  for (let attempt = 1; ; attempt++) {
    const res = await doFetch(url, init);
    const delay = retryAfterMs(res.headers.get('retry-after'));
    const retryable = res.status === 429 || (res.status === 503 && delay !== null);
    if (!retryable || attempt > retries) return res;
    // Without Retry-After: 1 s, 2 s, 4 s ...
    const delayMs = delay ?? 1000 * 2 ** (attempt - 1);
    if (delayMs > maxDelayMs) return res;
    await res.body?.cancel();
    opts.onRetry?.({ status: res.status, attempt, delayMs });
    await (opts.sleep ?? sleepFor)(delayMs);
  }
}
