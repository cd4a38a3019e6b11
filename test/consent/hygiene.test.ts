import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp, type TestApp } from '../helpers/app.ts';
import { Browser, consumerWith, hiddenFields, params, runFlow, startLiveApp, type LiveApp } from './harness.ts';

/** A URL cannot carry a lone UTF-16 surrogate (it becomes U+FFFD), so such strings are not valid states. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('consumer state echo', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it('returns any state unchanged, exactly once, on the redirect', async () => {
    const c = await addConsumer(t);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 80 }).filter((s) => !LONE_SURROGATE.test(s)), async (state) => {
        const q = new URLSearchParams({ consumerId: c.consumerId, subscriptionId: c.subscriptionId, redirectUrl: 'https://app.example.com/cb', state });
        const page = await t.app.inject({ method: 'GET', url: `/provision?${q}` });
        expect(page.statusCode).toBe(200);
        const res = await t.app.inject({
          method: 'POST',
          url: '/provision',
          headers: { cookie: page.cookies.map((k) => `${k.name}=${k.value}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ ...hiddenFields(page.body), decision: 'reject' }).toString(),
        });
        expect(res.statusCode).toBe(303);
        expect(new URL(res.headers.location as string).searchParams.getAll('state')).toEqual([state]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('no open redirector at the simulated manufacturer', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: 'http://127.0.0.1:18082' } });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it('never redirects to a redirect_uri other than the registered callback', async () => {
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constantFrom('GET', 'POST'), async (url, method) => {
        const q = new URLSearchParams({
          response_type: 'code',
          client_id: 'cvd',
          redirect_uri: url,
          scope: 'crashseverity',
          state: 's',
          code_challenge: 'a'.repeat(43),
          code_challenge_method: 'S256',
          decision: 'deny',
        });
        const res =
          method === 'GET'
            ? await t.app.inject({ method, url: `/oem/virtual/authorize?${q}` })
            : await t.app.inject({ method, url: '/oem/virtual/authorize', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: q.toString() });
        expect(res.statusCode).toBe(400);
        expect(res.headers.location).toBeUndefined();
      }),
      { numRuns: 80 },
    );
  });
});

describe('manufacturer tokens never stored or logged', () => {
  let t: LiveApp;
  beforeEach(async () => {
    t = await startLiveApp();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it('after a full flow the access token is in no log line, no Redis value and no stored process', async () => {
    // Watch (not replace) the real token response to learn the token the service received.
    const tokens: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const res = await realFetch(input, init);
      if (String(input).endsWith('/oem/virtual/token')) {
        const body = (await res.clone().json()) as { access_token?: string };
        if (body.access_token) tokens.push(body.access_token);
      }
      return res;
    };
    try {
      const c = await consumerWith(t);
      const { callback, consentId } = await runFlow(t, c, new Browser());
      expect(params(callback.location).has('code')).toBe(true);
      expect(tokens).toHaveLength(1);
      const token = tokens[0]!;
      expect(t.logs.join('\n')).not.toContain(token);
      const prefix = t.services.config.QUEUE_PREFIX;
      const keys = await t.services.redis.keys(`${prefix}:*`);
      for (const key of keys) {
        const type = await t.services.redis.type(key);
        const value = type === 'string' ? await t.services.redis.get(key) : JSON.stringify(await t.services.redis.dump(key));
        expect(value ?? '').not.toContain(token);
      }
      expect(JSON.stringify(await t.services.store.consents.get(consentId))).not.toContain(token);
      // Nor does the VIN appear in clear in the service's logs at info level.
      const info = t.logs.map((l) => JSON.parse(l) as { level: number; msg?: string }).filter((l) => l.level >= 30);
      expect(JSON.stringify(info)).not.toContain('V1RTUALV1N0000001');
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
