import { fetchWithRetry, type RetryOptions } from './retry.js';
import type { ErrorBody, Method, Operation, PathWith, RequestOptions, Success } from './types.js';

/**
 * The hand-written layer over the generated types: the auth headers, retries on 429, errors as
 * exceptions, and paging of the history. Every call is typed from the OpenAPI document:
 * `client.request('get', '/management/v1/vehicles/{vin}', { path: { vin } })`.
 */
export interface ClientOptions {
  /** The service's origin, e.g. `https://cvd.example.com`. */
  baseUrl: string;
  /** A consumer's API key (`x-api-key`). */
  apiKey?: string;
  /** The subscription the calls act in (`X-Subscription-Id`). */
  subscriptionId?: string;
  /** The operator's token, for /admin/v1 (`Authorization: Bearer`). */
  adminToken?: string;
  retry?: RetryOptions;
  fetch?: typeof fetch;
}

export class CvdApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    readonly headers: Headers,
  ) {
    super(body ? `${status} ${body.reasonCode}: ${body.reasonText}` : `HTTP ${status}`);
    this.name = 'CvdApiError';
  }
}

/** `/a/{x}` with `{x: 'b c'}` → `/a/b%20c`. */
function fillPath(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`path parameter ${name} missing`);
    return encodeURIComponent(String(params[name]));
  });
}

export class CvdClient {
  constructor(readonly options: ClientOptions) {}

  /** One typed call; resolves with the answer's JSON (undefined for a 204), throws CvdApiError on a 4xx/5xx. */
  async request<M extends Method, P extends PathWith<M>>(method: M, path: P, opts: RequestOptions<Operation<P, M>> = {}): Promise<Success<Operation<P, M>>> {
    const o = this.options;
    const url = new URL(fillPath(path, opts.path as Record<string, unknown>), o.baseUrl);
    for (const [k, v] of Object.entries((opts.query ?? {}) as Record<string, unknown>)) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (o.apiKey) headers['x-api-key'] = o.apiKey;
    if (o.subscriptionId) headers['x-subscription-id'] = o.subscriptionId;
    if (o.adminToken) headers.authorization = `Bearer ${o.adminToken}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = { method: method.toUpperCase(), headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) };
    const res = await fetchWithRetry(o.fetch ?? fetch, url.toString(), init, o.retry);
    const text = await res.text();
    const json: unknown = text === '' ? undefined : JSON.parse(text);
    if (!res.ok) throw new CvdApiError(res.status, json as ErrorBody | undefined, res.headers);
    return json as Success<Operation<P, M>>;
  }

  /**
   * Every data point of one item of one vehicle, newest first, page after page (docs/history.md):
   * follows `nextCursor` until it is null. A 429 on the way is waited out (Retry-After).
   */
  async *history(vin: string, item: string, opts: { from?: string; to?: string; pageSize?: number } = {}): AsyncGenerator<Record<string, unknown>> {
    let cursor: string | undefined;
    do {
      // Only the parameters that are set: with exactOptionalPropertyTypes an absent one is not `undefined`.
      const query = {
        ...(opts.from === undefined ? {} : { from: opts.from }),
        ...(opts.to === undefined ? {} : { to: opts.to }),
        ...(opts.pageSize === undefined ? {} : { limit: String(opts.pageSize) }),
        ...(cursor === undefined ? {} : { cursor }),
      };
      const page = await this.request('get', '/delivery/v1/history/{vin}/{item}', { path: { vin, item }, query });
      yield* page.dataPoints;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
}

export function createClient(options: ClientOptions): CvdClient {
  return new CvdClient(options);
}
