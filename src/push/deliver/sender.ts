import { request, type Dispatcher } from 'undici';
import { readExcerpt } from './answer-excerpt.ts';

/** At most this much of a receiver's answer is read (and then dropped): a push never relays it (only the test event shows its start to the webhook's owner). */
export const MAX_RESPONSE_BYTES = 4096;

export interface SendResult {
  /** HTTP status, null when no answer came. */
  statusCode: number | null;
  /** Short reason of a failure (no response body, ever), null on a 2xx. */
  error: string | null;
  durationMs: number;
  /** Retry-After of the answer, raw. */
  retryAfter: string | undefined;
  /** Only when asked for (`excerpt`): the start of the answer's body as text (answer-excerpt.ts). */
  bodyExcerpt?: string | null;
}

/**
 * One webhook POST, guarded against SSRF and judged by its status code: the exact body bytes, timeouts on connect,
 * answer and body, redirects NOT followed (undici's request does not follow them, and a 3xx
 * is a failure), and the answer's body read only up to a few KB (then the socket is dropped)
 * so a hostile receiver can neither stream us gigabytes nor have its text shown to anyone.
 */
/** Longest the answer's body is read after its status line came. */
const BODY_DRAIN_MS = 2000;

export async function postWebhook(
  dispatcher: Dispatcher,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  /** Keep the start of the answer's body (the test event shows it to the webhook's owner); pushes never do. */
  opts: { excerpt?: boolean } = {},
): Promise<SendResult> {
  const started = performance.now();
  // The answer's status line must come within the timeout, counted from the start: undici's
  // headersTimeout alone restarts on every interim 1xx answer, so a receiver sending
  // `102 Processing` forever would hold a push slot forever. The connect timeout is the agent's.
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const res = await request(url, { method: 'POST', dispatcher, headers, body, bodyTimeout: timeoutMs, signal: abort.signal });
    clearTimeout(deadline);
    // The status decides the attempt; the body is only read (a few KB at most) to free the
    // connection for the next push, for at most BODY_DRAIN_MS: a receiver trickling its answer
    // byte by byte is cut off then, so a send ends within about PUSH_TIMEOUT_MS plus that, well
    // inside SHUTDOWN_TIMEOUT_MS (docs/operations.md).
    const cutOff = setTimeout(() => res.body.destroy(), Math.min(timeoutMs, BODY_DRAIN_MS));
    const contentType = res.headers['content-type'];
    const bodyExcerpt = opts.excerpt
      ? await readExcerpt(res.body, Array.isArray(contentType) ? contentType[0] : contentType)
      : await res.body.dump({ limit: MAX_RESPONSE_BYTES }).then(() => undefined, () => undefined);
    clearTimeout(cutOff);
    const statusCode = res.statusCode;
    const retryAfter = res.headers['retry-after'];
    return {
      statusCode,
      error: statusCode >= 200 && statusCode < 300 ? null : httpError(statusCode),
      durationMs: Math.round(performance.now() - started),
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      ...(opts.excerpt ? { bodyExcerpt } : {}),
    };
  } catch (err) {
    clearTimeout(deadline);
    return {
      statusCode: null,
      error: abort.signal.aborted ? `timeout after ${timeoutMs} ms` : networkError(err, timeoutMs),
      durationMs: Math.round(performance.now() - started),
      retryAfter: undefined,
    };
  }
}

function httpError(statusCode: number): string {
  if (statusCode >= 300 && statusCode < 400) return `HTTP ${statusCode} (redirects are not followed)`;
  return `HTTP ${statusCode}`;
}

function networkError(err: unknown, timeoutMs: number): string {
  if (!(err instanceof Error)) return 'network error';
  const code = (err as Error & { code?: string }).code;
  if (code === 'ERR_PUSH_TARGET_BLOCKED') return 'blocked: the target resolves to a loopback, private or reserved address';
  const cause = (err as Error & { cause?: { code?: string } }).cause;
  const c = code ?? cause?.code;
  switch (c) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host does not resolve';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timeout';
    case 'UND_ERR_BODY_TIMEOUT':
      return `timeout after ${timeoutMs} ms`;
    default:
      return c ? `network error (${c})` : 'network error';
  }
}
