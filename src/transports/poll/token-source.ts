import { adapterSecret } from '../../adapters/secrets.ts';
import type { Adapter } from '../../adapters/manifest.ts';
import type { PollTransport } from './kind.ts';
import { resolveEndpoint } from '../../consent/manufacturer-auth.ts';
import type { IngestContext } from '../deps.ts';
import { discardBody, readCapped } from './read-capped.ts';
import { retryAfterMs } from './retry-after.ts';

/** Taken off a token's lifetime, so a token is renewed before it runs out in flight. */
const EXPIRY_MARGIN_MS = 30_000;

/** What asking for a token gave: a token, an order to wait (429), or a failure. */
export type TokenResult = { token: string } | { waitMs: number } | { failed: string };

/**
 * The access token of the service's own client at a polled manufacturer's API: the OAuth 2.0
 * client-credentials grant (RFC 6749 section 4.4), the client authenticated with HTTP Basic.
 * Kept per process until shortly before it expires; `invalidate` after a 401. Concurrent callers
 * share one token request. The secret is never logged.
 */
export interface TokenSource {
  get(send: (url: string, init: RequestInit) => Promise<Response | { waitMs: number }>): Promise<TokenResult>;
  invalidate(): void;
}

export function createTokenSource(services: Pick<IngestContext, 'config' | 'clock'>, adapter: Adapter): TokenSource {
  const t = adapter.manifest.transport as PollTransport;
  const url = resolveEndpoint(services.config, t.tokenEndpoint);
  let cached: { token: string; expiresAtMs: number } | undefined;
  let pending: Promise<TokenResult> | undefined;

  const request = async (send: Parameters<TokenSource['get']>[0]): Promise<TokenResult> => {
    const secret = adapterSecret(services.config, adapter);
    const basic = Buffer.from(`${encodeURIComponent(t.clientId)}:${encodeURIComponent(secret)}`).toString('base64');
    const form = new URLSearchParams({ grant_type: 'client_credentials', ...(t.scope ? { scope: t.scope } : {}) });
    const res = await send(url, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    if ('waitMs' in res) return res;
    if (res.status !== 200) await discardBody(res);
    if (res.status === 429) return { waitMs: retryAfterMs(res.headers.get('retry-after'), services.clock.now()) };
    if (res.status !== 200) return { failed: `token endpoint answered ${res.status}` };
    const read = await readCapped(res, services.config.POLL_MAX_PAGE_BYTES);
    if (read.over) return { failed: `token endpoint answered more than POLL_MAX_PAGE_BYTES (${services.config.POLL_MAX_PAGE_BYTES} bytes)` };
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(new TextDecoder('utf-8').decode(read.bytes)) as typeof body;
    } catch {
      return { failed: 'token endpoint answered something that is not JSON' };
    }
    if (typeof body.access_token !== 'string' || body.access_token === '') return { failed: 'token endpoint answered without an access_token' };
    const lifetimeS = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    cached = { token: body.access_token, expiresAtMs: services.clock.now().getTime() + Math.max(lifetimeS * 1000 - EXPIRY_MARGIN_MS, 1000) };
    return { token: body.access_token };
  };

  return {
    async get(send) {
      if (cached && cached.expiresAtMs > services.clock.now().getTime()) return { token: cached.token };
      pending ??= request(send).finally(() => (pending = undefined));
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
