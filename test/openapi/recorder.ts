import type { ExamplesFile, RecordedCall } from '../../src/http/openapi/document.ts';
import type { LiveApp } from '../consent/harness.ts';

/**
 * Sends calls to the live service and keeps each answer as an OpenAPI example of its operation
 * (so they are real answers, never hand-written): the first successful call of an operation is its request example; every
 * answer is a response example under its status and name. The answer's status must be the
 * expected one, so a scenario that no longer works fails instead of recording errors.
 */
export interface Call {
  /** The operationId (src/http/openapi/operations.ts). */
  op: string;
  /** The example's name within its status. */
  name: string;
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent as is, instead of `body` (signed bodies). */
  raw?: string;
  status: number;
}

export class Recorder {
  readonly file: ExamplesFile = { operations: {}, webhooks: {} };

  constructor(private readonly t: LiveApp) {}

  async call<T = any>(c: Call): Promise<T> { // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read loosely by the scenario
    const url = new URL(c.path, this.t.origin);
    for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.set(k, v);
    const hasBody = c.raw !== undefined || c.body !== undefined;
    const res = await fetch(url, {
      method: c.method,
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...c.headers },
      ...(hasBody ? { body: c.raw ?? JSON.stringify(c.body) } : {}),
    });
    const text = await res.text();
    if (res.status !== c.status) throw new Error(`${c.op} ${c.name}: ${c.method} ${c.path} answered ${res.status}, expected ${c.status}: ${text}`);
    const body: unknown = text === '' ? undefined : JSON.parse(text);
    const entry = (this.file.operations[c.op] ??= { request: undefined as unknown as RecordedCall, responses: {} });
    if (!entry.request && res.status < 400) {
      entry.request = { path: c.path, ...(c.query ? { query: c.query } : {}), ...(hasBody ? { body: c.raw !== undefined ? JSON.parse(c.raw) : c.body } : {}) };
    }
    if (body !== undefined) (entry.responses[String(res.status)] ??= {})[c.name] = body;
    return body as T;
  }

  webhook(name: string, headers: Record<string, string | string[] | undefined>, rawBody: string): void {
    const keep = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];
    this.file.webhooks[name] = { headers: Object.fromEntries(keep.map((h) => [h, String(headers[h])])), body: JSON.parse(rawBody) };
  }
}
