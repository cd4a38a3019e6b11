import { randomBytes } from 'node:crypto';
import type { Adapter } from '../../adapters/manifest.ts';
import { POLL_DEFAULTS, type PollTransport } from './kind.ts';
import { resolveEndpoint } from '../../consent/manufacturer-auth.ts';
import type { IngestContext } from '../deps.ts';
import type { ApiRateLimiter } from './rate-limiter.ts';
import { discardBody, readCapped } from './read-capped.ts';
import { retryAfterMs } from './retry-after.ts';
import { createTokenSource } from './token-source.ts';

/** Longest a worker holds a job waiting for its request slot; a later slot reschedules the job. */
const MAX_SLOT_WAIT_MS = 2000;

/** What one poll of one vehicle gave. */
export type PageOutcome =
  /** A page: `text` is the body as received (one raw message), `signals` how many it holds (-1: no list). */
  | { kind: 'page'; text: string; nextCursor: string; hasMore: boolean; signals: number }
  /** Not now: the rate limit (ours or the API's 429) says wait this long. Not a failure. */
  | { kind: 'wait'; ms: number }
  /** 404: the manufacturer does not (or no longer) share this vehicle with us. */
  | { kind: 'not-shared' }
  /** 5xx, a timeout, a connection error, a 401 with a fresh token. */
  | { kind: 'failed'; reason: string }
  /**
   * A 200 whose page cannot be used: over POLL_MAX_PAGE_BYTES (`body` is its start only), not
   * JSON, or without a next cursor. A failed poll too; the caller quarantines the page
   * (./poll-vehicle.ts).
   */
  | { kind: 'bad-page'; reason: string; body: Buffer; cut: boolean };

export interface PollApiClient {
  fetchPage(vin: string, cursor: string | undefined): Promise<PageOutcome>;
}

/**
 * One polled manufacturer's API as the API contract of docs/adding-a-manufacturer.md describes
 * it. Every request (token requests included) takes a slot of the shared rate limiter first.
 * Requests carry `x-request-id: <poller id>.<n>`: the poller id names this process in its log
 * (the line "poll workers started"), so a request the manufacturer asks about can be traced.
 */
export function createPollApiClient(
  services: Pick<IngestContext, 'config' | 'clock'>,
  adapter: Adapter,
  limiter: ApiRateLimiter,
  pollerId: string = randomBytes(4).toString('hex'),
): PollApiClient {
  const t = adapter.manifest.transport as PollTransport;
  const base = resolveEndpoint(services.config, t.apiBaseUrl);
  const tokens = createTokenSource(services, adapter);
  let n = 0;

  /** Sends one request within the rate limit, or says how long to wait for a slot. */
  const send = async (url: string, init: RequestInit): Promise<Response | { waitMs: number }> => {
    const slot = await limiter.acquire(MAX_SLOT_WAIT_MS);
    if (!slot.granted) return { waitMs: slot.waitMs };
    if (slot.waitMs > 0) await new Promise((r) => setTimeout(r, slot.waitMs));
    // A 429 seen by any process while this one waited for its slot holds this request back too.
    const paused = await limiter.pausedMs();
    if (paused > 0) return { waitMs: paused };
    const headers = { ...(init.headers as Record<string, string>), 'user-agent': 'cvd-poller/1', 'x-request-id': `${pollerId}.${++n}` };
    const res = await fetch(url, { ...init, headers, redirect: 'error', signal: AbortSignal.timeout(services.config.POLL_REQUEST_TIMEOUT_MS) });
    if (res.status === 429) await limiter.pause(retryAfterMs(res.headers.get('retry-after'), services.clock.now()));
    return res;
  };

  const pageUrl = (vin: string, cursor: string | undefined): string => {
    const u = new URL(`${base}${t.pagePath.replace('{vin}', encodeURIComponent(vin))}`);
    u.searchParams.set(t.pageSizeParam ?? POLL_DEFAULTS.pageSizeParam, String(t.pageSize ?? POLL_DEFAULTS.pageSize));
    if (cursor !== undefined) u.searchParams.set(t.cursorParam ?? POLL_DEFAULTS.cursorParam, cursor);
    return u.toString();
  };

  const attempt = async (vin: string, cursor: string | undefined, retried: boolean): Promise<PageOutcome> => {
    const token = await tokens.get(send);
    if ('waitMs' in token) return { kind: 'wait', ms: token.waitMs };
    if ('failed' in token) return { kind: 'failed', reason: token.failed };
    const res = await send(pageUrl(vin, cursor), { headers: { authorization: `Bearer ${token.token}`, accept: 'application/json' } });
    if ('waitMs' in res) return { kind: 'wait', ms: res.waitMs };
    if (res.status !== 200) await discardBody(res);
    switch (res.status) {
      case 200: {
        const cap = services.config.POLL_MAX_PAGE_BYTES;
        const body = await readCapped(res, cap);
        if (body.over) return { kind: 'bad-page', reason: `the API answered a page of more than POLL_MAX_PAGE_BYTES (${cap} bytes)`, body: body.bytes, cut: true };
        return readPage(body.bytes, t.nextCursorField ?? POLL_DEFAULTS.nextCursorField);
      }
      case 401:
        tokens.invalidate();
        return retried ? { kind: 'failed', reason: 'the API refused a fresh token (401)' } : attempt(vin, cursor, true);
      case 404:
        return { kind: 'not-shared' };
      case 429:
        return { kind: 'wait', ms: retryAfterMs(res.headers.get('retry-after'), services.clock.now()) };
      default:
        return { kind: 'failed', reason: `the API answered ${res.status}` };
    }
  };

  return {
    async fetchPage(vin, cursor) {
      try {
        return await attempt(vin, cursor, false);
      } catch (err) {
        const e = err as Error;
        return { kind: 'failed', reason: e.name === 'TimeoutError' ? `no answer within POLL_REQUEST_TIMEOUT_MS` : `request failed: ${e.message}` };
      }
    },
  };
}

/** A 200's body: its next cursor and whether more is waiting. Without a next cursor there is no way on. */
function readPage(bytes: Buffer, nextCursorField: string): PageOutcome {
  // As Response.text() decodes: invalid sequences become U+FFFD.
  const text = new TextDecoder('utf-8').decode(bytes);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { kind: 'bad-page', reason: 'the API answered a page that is not JSON', body: bytes, cut: false };
  }
  const next = body?.[nextCursorField];
  if (typeof next !== 'string' || next === '') return { kind: 'bad-page', reason: `the API answered a page without "${nextCursorField}"`, body: bytes, cut: false };
  return { kind: 'page', text, nextCursor: next, hasMore: body.hasMore === true, signals: Array.isArray(body.signals) ? body.signals.length : -1 };
}
