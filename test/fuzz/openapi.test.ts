import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { operations } from '../security/operations.ts';
import { fuzzContext, NUM_RUNS } from './context.ts';
import { checkResponse, requestsFor, send } from './requests.ts';

// The operations come from the app's own OpenAPI document, so the app is built while collecting.
const t = await createTestApp({
  env: { RATE_LIMIT_SUBSCRIPTION_MAX: '100000000', RATE_LIMIT_VEHICLE_MAX: '100000000' },
});
const ctx = await fuzzContext(t);
const ops = operations(t.app);

/**
 * Fuzzing the API (schemathesis's checks rebuilt on fast-check): for every operation of the
 * OpenAPI document, requests generated from its schema — valid-ish and broken bodies, query
 * strings and path parameters, with good, missing and foreign credentials — never get a 5xx,
 * every error is the contract's body, and every 2xx body matches the documented response.
 */
describe('every operation of the OpenAPI document survives generated input', () => {
  afterAll(async () => t.cleanup());

  it('the document lists the whole API', () => {
    const paths = new Set(ops.map((o) => o.path.split('/')[1]));
    for (const group of ['catalog', 'admin', 'api', 'consent', 'management', 'delivery', 'push', 'ingest', 'health']) expect(paths, group).toContain(group);
  });

  it.each(ops.map((o) => [`${o.method} ${o.path}`, o] as const))('%s', async (_name, o) => {
    await fc.assert(
      fc.asyncProperty(requestsFor(o, ctx), async (req) => checkResponse(o, req, await send(t.app, req))),
      { numRuns: NUM_RUNS },
    );
  });
});
