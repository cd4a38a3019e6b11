import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestConsumer } from '../helpers/app.ts';
import { authOf, type Operation } from '../security/operations.ts';
import { anyFor, nastyString, validFor, type Hints, type Schema } from './schema-arbitrary.ts';

/** Known values that let generated requests reach deep into the handlers. */
export interface FuzzContext {
  a: TestConsumer;
  b: TestConsumer;
  vins: string[];
  items: string[];
  /** Ids of existing resources: consumers, subscriptions, consents, deliveries, quarantine entries. */
  ids: string[];
  adminToken: string;
}

export interface FuzzRequest {
  method: string;
  /** The path exactly as sent (percent-encoded), without the query string. */
  path: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

export function hintsFor(ctx: FuzzContext): Hints {
  const vin = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ctx.vins) },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-HJ-NPR-Z0-9]{17}$/) },
    { weight: 1, arbitrary: nastyString },
  );
  const item = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ctx.items) }, { weight: 1, arbitrary: nastyString });
  const id = fc.oneof(fc.constantFrom(...ctx.ids), fc.uuid(), nastyString);
  const isoTime = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  return (name) => {
    const n = name.toLowerCase();
    if (n === 'vin' || n === 'value') return vin;
    if (n === 'vins') return fc.array(vin, { minLength: 1, maxLength: 4 });
    if (n === 'item' || n === 'technicalname') return item;
    if (n === 'dataitems' || n === 'items') return fc.array(item, { minLength: 1, maxLength: 4 });
    if (n.endsWith('id') || n === 'code' || n === 'cursor') return id;
    if (n === 'since' || n === 'until' || n === 'from' || n === 'to' || n === 'updatedsince' || n === 'receivedat') return fc.oneof({ weight: 3, arbitrary: isoTime }, { weight: 1, arbitrary: nastyString });
    if (n === 'version') return fc.oneof({ weight: 5, arbitrary: fc.constant('1.0') }, { weight: 1, arbitrary: fc.constantFrom('2.0', '', '1.0 ') });
    if (n === 'action') return fc.oneof({ weight: 5, arbitrary: fc.constantFrom('activate', 'deactivate') }, { weight: 1, arbitrary: fc.constant('explode') });
    if (n === 'type') return fc.oneof({ weight: 5, arbitrary: fc.constant('VIN') }, { weight: 1, arbitrary: fc.constant('VRN') });
    if (n === 'limit') return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 100 }).map(String) }, { weight: 1, arbitrary: fc.integer({ min: -5, max: 100_000 }).map(String) }, { weight: 1, arbitrary: nastyString });
    // Literal addresses: no DNS lookups, and the SSRF guard refuses the private ones.
    if (n === 'url' || n.includes('redirect')) return fc.constantFrom('https://93.184.216.34/hook', 'https://93.184.216.34/hook', 'https://127.0.0.1/hook', 'http://localhost:1/x', 'https://[::1]/h', 'https://203.0.113.7/in', 'ftp://x', 'javascript:alert(1)', 'not a url');
    if (n === 'manufacturer') return fc.constantFrom('virtual', 'borealis', 'nobody', 'VIRTUAL');
    if (n === 'deliverymethod') return fc.constantFrom('push', 'pull', 'PUSH', 'x');
    if (n === 'status') return fc.constantFrom('PENDING', 'RETRYING', 'DELIVERED', 'DEAD', 'DROPPED', 'x');
    if (n === 'mode') return fc.constantFrom('none', 'down', 'x');
    if (n === 'legalbasis') return fc.constantFrom('CONSENT', 'CONTRACT', 'x');
    return undefined;
  };
}

type Headers = Record<string, string>;
interface Body {
  headers: Headers;
  payload?: string | Buffer;
}

function authHeaders(o: Operation, ctx: FuzzContext): fc.Arbitrary<Headers> {
  const { a, b } = ctx;
  const junk = fc.constantFrom<Headers>({}, { 'x-api-key': 'cvd_live_0000000000000000000000000000' }, { authorization: 'Bearer ' }, { 'x-api-key': '' });
  switch (authOf(o.op)) {
    case 'admin':
      return fc.oneof(
        { weight: 8, arbitrary: fc.constant<Headers>({ authorization: `Bearer ${ctx.adminToken}` }) },
        { weight: 1, arbitrary: fc.constantFrom<Headers>({}, { authorization: 'Bearer wrong' }, { authorization: `Basic ${ctx.adminToken}` }, { authorization: `bearer  ${ctx.adminToken}  ` }) },
      );
    case 'subscription':
      return fc.oneof(
        { weight: 8, arbitrary: fc.constant<Headers>(a.headers) },
        { weight: 1, arbitrary: fc.constantFrom<Headers>({ 'x-api-key': a.apiKey }, { 'X-API-KEY': a.apiKey, 'X-SUBSCRIPTION-ID': a.subscriptionId }, { 'x-api-key': a.apiKey, 'x-subscription-id': b.subscriptionId }, { 'x-api-key': b.apiKey, 'x-subscription-id': a.subscriptionId }) },
        { weight: 1, arbitrary: fc.tuple(nastyString, nastyString).map(([k, s]): Headers => ({ 'x-api-key': k.replace(/[\r\n\0]/g, ''), 'x-subscription-id': s.replace(/[\r\n\0]/g, '') })) },
        { weight: 1, arbitrary: junk },
      );
    case 'apiKey':
      return fc.oneof({ weight: 3, arbitrary: fc.constant<Headers>({ 'x-api-key': a.apiKey }) }, { weight: 1, arbitrary: fc.constant<Headers>({ 'x-api-key': b.apiKey }) }, { weight: 1, arbitrary: junk });
    case 'none':
      return fc.oneof({ weight: 3, arbitrary: fc.constant<Headers>({}) }, { weight: 1, arbitrary: junk });
  }
}

/** A header value Node accepts (HTTP forbids control characters in headers). */
const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, '');

function bodyFor(o: Operation, hints: Hints): fc.Arbitrary<Body> {
  const schema = o.op.requestBody?.content['application/json']?.schema as Schema | undefined;
  const json = (schema ? anyFor(schema, hints) : fc.jsonValue({ maxDepth: 3 })).map((v): Body => ({
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(v) ?? 'null',
  }));
  const other = fc.oneof<fc.Arbitrary<Body>[]>(
    fc.tuple(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', ''), fc.string({ maxLength: 60 })).map(([type, text]): Body => ({
      headers: type ? { 'content-type': type } : {},
      payload: text,
    })),
    fc.uint8Array({ maxLength: 200 }).map((bytes): Body => ({ headers: { 'content-type': 'application/json' }, payload: Buffer.from(bytes) })),
    fc.constant<Body>({ headers: {} }),
    fc.constant<Body>({ headers: { 'content-type': 'application/json' }, payload: '' }),
    fc.constant<Body>({ headers: { 'content-type': 'application/json' }, payload: '{"a":' }),
  );
  // An operation without a documented body mostly gets none, so its other inputs are what is tested.
  if (!schema) return fc.oneof({ weight: 6, arbitrary: fc.constant<Body>({ headers: {} }) }, { weight: 1, arbitrary: json }, { weight: 1, arbitrary: other });
  return fc.oneof({ weight: 8, arbitrary: json }, { weight: 2, arbitrary: other });
}

/**
 * Lone surrogates cannot be percent-encoded; `.` and `..` (even as %2E) are dot segments the
 * client resolves (WHATWG URL) before anything is sent, so they never reach the server.
 */
function pathSegment(value: string): string {
  const encoded = encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, ''));
  return /^\.{1,2}$/.test(encoded) ? `${encoded}x` : encoded;
}

/** Requests for one operation: path, query, credentials and body, valid-ish and invalid. */
export function requestsFor(o: Operation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const hints = hintsFor(ctx);
  const params = o.op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');

  const segment = (p: (typeof pathParams)[number]) =>
    fc.oneof(
      { weight: 4, arbitrary: validFor((p.schema ?? {}) as Schema, hints, p.name).map((v) => pathSegment(String(v))) },
      { weight: 2, arbitrary: nastyString.map(pathSegment) },
      { weight: 1, arbitrary: fc.constantFrom('%E0%A4%A', '%', '%2F', '%00', 'a%20b', '%C0%AE') },
    );
  const path = fc.tuple(...pathParams.map(segment)).map((values) => {
    let i = 0;
    return o.path.replace(/\{[^}]+\}/g, () => values[i++] || 'x');
  });

  // Each declared parameter: absent half of the time, else mostly a plausible value.
  const queryValue = (p: (typeof queryParams)[number]) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: validFor((p.schema ?? {}) as Schema, hints, p.name).map(String) },
      { weight: 1, arbitrary: nastyString },
    );
  const query = fc
    .tuple(
      fc.tuple(...queryParams.map(queryValue)),
      // Rare: an unknown parameter or a repeated one is refused before the handler runs.
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 10 })) },
      ),
      fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    )
    .map(([values, extra, duplicate]) => {
      const q = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const v = values[i];
        if (v === undefined) return;
        q.append(p.name, v.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, ''));
        if (duplicate && i === 0) q.append(p.name, v);
      });
      if (extra) q.append(extra[0], extra[1]);
      const s = q.toString();
      return s ? `?${s}` : '';
    });

  const withBody = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(o.method);
  const body: fc.Arbitrary<Body> = withBody ? bodyFor(o, hints) : fc.constant<Body>({ headers: {} });

  return fc.record({ path, query, auth: authHeaders(o, ctx), body }).map(({ path: p, query: q, auth, body: b }) => ({
    method: o.method,
    path: p,
    url: `${p}${q}`,
    headers: Object.fromEntries(Object.entries({ ...auth, ...b.headers }).map(([k, v]) => [k, headerSafe(v)])),
    ...(b.payload !== undefined ? { payload: b.payload } : {}),
  }));
}

type AjvCtor = typeof AjvModule.default;
const Ajv: AjvCtor = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as AjvCtor;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: InstanceType<AjvCtor>) => void;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<unknown, ReturnType<typeof ajv.compile>>();

export const ERROR_BODY = {
  reasonCode: expect.stringMatching(/^(CAR|car)\.\d{3}$/),
  reasonText: expect.any(String),
  url: expect.any(String),
  method: expect.any(String),
};

/**
 * The checks schemathesis would run against the OpenAPI document: not_a_server_error; every error in the
 * contract's body with the request's status, path and method; a 2xx body that matches the
 * operation's documented response schema.
 */
export function checkResponse(o: Operation, req: FuzzRequest, res: LightMyRequestResponse): void {
  const label = `${req.method} ${req.url} ${JSON.stringify(req.headers)} ${String(req.payload ?? '').slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, label).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(res.headers['content-type'], label).toMatch(/^application\/json/);
    const body = res.json() as Record<string, unknown>;
    expect(body, label).toEqual(ERROR_BODY);
    const confirmation = String(body.reasonCode).startsWith('car.');
    expect(body.reasonCode, label).toBe(`${confirmation ? 'car' : 'CAR'}.${res.statusCode}`);
    expect(body.url, label).toBe(confirmation ? req.path.replace(/^\/api/, '') : req.path);
    expect(body.method, label).toBe(req.method);
    return;
  }
  const schema = (o.op.responses?.[String(res.statusCode)] as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema;
  if (schema === undefined || !String(res.headers['content-type']).startsWith('application/json')) return;
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema as object);
    validators.set(schema, validate);
  }
  expect(validate(res.json()), `${label}\nresponse schema: ${JSON.stringify(validate.errors)}`).toBe(true);
}

/** Sends one generated request to the app. */
export function send(app: FastifyInstance, req: FuzzRequest) {
  return app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) });
}
