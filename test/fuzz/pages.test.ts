import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp } from '../helpers/app.ts';
import { NUM_RUNS } from './context.ts';
import { nastyString } from './schema-arbitrary.ts';

const t = await createTestApp();
const a = await addConsumer(t, { dataItems: ['mileage', 'crashseverity'] });
const b = await addConsumer(t);

/** A plausible value for a form or query field by its name, or a nasty one. */
function field(name: string): fc.Arbitrary<string> {
  const pools: Record<string, string[]> = {
    consumerId: [a.consumerId, b.consumerId],
    subscriptionId: [a.subscriptionId, b.subscriptionId],
    redirectUrl: ['https://app.example.com/cb', 'https://evil.example.com/cb', 'https://app.example.com/cb/'],
    redirect_uri: ['https://app.example.com/cb', 'http://localhost/cb'],
    vin: ['V1RTUALV1N0000001', 'BRLAU1EV0N1000001', 'v1rtualv1n0000001', 'WVWZZZ1JZXW000001'],
    email: ['a@b.example', 'no-at-sign'],
    decision: ['approve', 'reject', 'allow', 'deny'],
    client_id: ['cvd', 'cvd-borealis', 'someone'],
    response_type: ['code', 'token'],
    code_challenge_method: ['S256', 'plain'],
    code_challenge: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'short'],
    scope: ['mileage crashseverity', 'mileage', 'nothing'],
    grant_type: ['authorization_code', 'client_credentials'],
    item: ['mileage', 'crashseverity'],
    error: ['access_denied', 'server_error'],
    iss: ['/oem/virtual', 'https://evil.example.com'],
  };
  const pool = pools[name];
  return pool ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: nastyString }) : nastyString;
}

const noLoneSurrogates = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '');

/** Some of the fields with values (a field may repeat), plus now and then an unknown one, URL-encoded. */
function encoded(fields: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.subarray(fields),
      fc.context(),
      fc.oneof({ weight: 5, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.string({ maxLength: 8 }), nastyString), { maxLength: 2 }) }),
      fc.integer({ min: 0, max: 7 }),
    )
    .chain(([names, , extra, repeat]) =>
      fc.tuple(...names.map((n) => field(n).map((v) => [n, v] as [string, string]))).map((pairs) => {
        const q = new URLSearchParams();
        for (const [k, v] of [...pairs, ...extra]) q.append(noLoneSurrogates(k), noLoneSurrogates(v));
        if (repeat === 0 && pairs[0]) q.append(pairs[0][0], pairs[0][1]);
        return q.toString();
      }),
    );
}

interface Page {
  method: 'GET' | 'POST';
  path: string;
  fields: string[];
  /** The simulated manufacturers' token endpoint answers OAuth JSON errors; every other page answers HTML. */
  kind: 'html' | 'oauth';
}

const PORTAL_QUERY = ['consumerId', 'subscriptionId', 'redirectUrl', 'state', 'code_challenge', 'code_challenge_method', 'vin', 'firstName', 'lastName', 'email'];
const AUTHORIZE = ['client_id', 'redirect_uri', 'state', 'response_type', 'code_challenge', 'code_challenge_method', 'scope', 'vin'];
const PAGES: Page[] = [
  { method: 'GET', path: '/provision', fields: PORTAL_QUERY, kind: 'html' },
  { method: 'POST', path: '/provision', fields: ['consentId', 'csrf', 'decision', 'vin', 'firstName', 'lastName', 'email'], kind: 'html' },
  { method: 'GET', path: '/callback/virtual', fields: ['code', 'state', 'error', 'error_description', 'iss'], kind: 'html' },
  { method: 'GET', path: '/callback/borealis', fields: ['code', 'state', 'error', 'iss'], kind: 'html' },
  { method: 'GET', path: '/callback/nobody', fields: ['code', 'state'], kind: 'html' },
  { method: 'GET', path: '/oem/virtual/authorize', fields: AUTHORIZE, kind: 'html' },
  { method: 'POST', path: '/oem/virtual/authorize', fields: [...AUTHORIZE, 'decision', 'username', 'password', 'item'], kind: 'html' },
  { method: 'GET', path: '/oem/borealis/authorize', fields: AUTHORIZE, kind: 'html' },
  { method: 'POST', path: '/oem/virtual/token', fields: ['grant_type', 'code', 'redirect_uri', 'client_id', 'client_secret', 'code_verifier'], kind: 'oauth' },
  { method: 'POST', path: '/oem/borealis/token', fields: ['grant_type', 'code', 'redirect_uri', 'client_id', 'client_secret', 'code_verifier'], kind: 'oauth' },
  { method: 'GET', path: '/demo/callback', fields: ['code', 'consent_id', 'state', 'error', 'error_description'], kind: 'html' },
];

const FORM = 'application/x-www-form-urlencoded';

/**
 * Fuzzing for the pages outside the OpenAPI document (consent portal, manufacturer
 * callbacks, the simulated manufacturers, the demo callback): generated queries and form
 * posts never get a 5xx, and a refused one is an HTML page with a 4xx (OAuth JSON on the
 * token endpoints), never the JSON API's error body or a stack trace.
 */
describe('the HTML pages survive generated queries and form posts', () => {
  afterAll(async () => t.cleanup());

  it.each(PAGES.map((p) => [`${p.method} ${p.path}`, p] as const))('%s', async (_name, page) => {
    const body = fc.oneof(
      { weight: 4, arbitrary: encoded(page.fields).map((payload) => ({ type: FORM, payload })) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', FORM), fc.string({ maxLength: 80 })).map(([type, payload]) => ({ type, payload })) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }).map((bytes) => ({ type: FORM, payload: Buffer.from(bytes).toString('latin1') })) },
    );
    const request = page.method === 'GET' ? encoded(page.fields).map((q) => ({ url: q ? `${page.path}?${q}` : page.path, body: undefined })) : body.map((b) => ({ url: page.path, body: b }));
    const cookie = fc.constantFrom<Record<string, string>>({}, { cookie: 'cvd_session=abc' }, { cookie: '\u0000=;;;' .replace(/\u0000/g, '') });

    await fc.assert(
      fc.asyncProperty(request, cookie, async (req, extra) => {
        const res = await t.app.inject({
          method: page.method,
          url: req.url,
          headers: { ...extra, ...(req.body ? { 'content-type': req.body.type } : {}) },
          ...(req.body ? { payload: req.body.payload } : {}),
        });
        const label = `${page.method} ${req.url} ${req.body ? `${req.body.type} ${req.body.payload.slice(0, 200)}` : ''} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, label).toBeLessThan(500);
        if (res.statusCode < 400) return;
        // RFC 6749 §5.2 errors are JSON for the token request it defines (a form post); a body the
        // simulated server cannot even parse gets its HTML error page, which is a 4xx all the same.
        if (page.kind === 'oauth' && req.body?.type === FORM) {
          expect(res.headers['content-type'], label).toMatch(/^application\/json/);
          expect(res.json(), label).toEqual(expect.objectContaining({ error: expect.any(String) }));
        } else if (page.kind === 'html') {
          expect(res.headers['content-type'], label).toMatch(/^text\/html/);
          expect(res.body, label).toMatch(/<html/i);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
