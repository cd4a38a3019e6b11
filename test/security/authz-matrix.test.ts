import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ACTORS, isNotApplicable, MATRIX, PUBLIC_ROUTES, rowLabel, type Actor, type MatrixRow, type Outcome, type Probe } from './authz-matrix.ts';
import { VIN4 } from '../delivery/fixtures.ts';
import { actorHeaders, createWorld, tenantState, VIN5, type Objects, type World } from './authz-matrix.world.ts';
import { authOf, operations } from './operations.ts';

interface Registered {
  method: string;
  url: string;
}

/**
 * The app, and every route it registers: Fastify publishes `fastify.initialization` before any
 * plugin runs, so an onRoute hook added there sees them all, prefixes included.
 */
async function appWithRoutes(): Promise<{ t: TestApp; routes: Registered[] }> {
  const routes: Registered[] = [];
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) routes.push({ method, url: r.url });
    });
  };
  diagnostics.subscribe('fastify.initialization', onInit);
  try {
    return { t: await createTestApp({ env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true' } }), routes };
  } finally {
    diagnostics.unsubscribe('fastify.initialization', onInit);
  }
}

function fill(template: string, o: Objects): string {
  return template.replace(/\{(vin|consentId|code|transactionId|consumerId|subscriptionId|keyId)\}/g, (_m, k: keyof Objects) => o[k]);
}

interface Sent {
  status: number;
  body: string;
  /** Everything the request carried: values found here may be echoed back. */
  request: string;
}

async function send(t: TestApp, row: MatrixRow, headers: Record<string, string>, objects: Objects, method: string = row.method): Promise<Sent> {
  const url = fill(row.url, objects);
  const payload = row.body === undefined ? undefined : fill(JSON.stringify(row.body), objects);
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: res.statusCode, body: res.body, request: `${url} ${payload ?? ''} ${JSON.stringify(headers)}` };
}

/** Whose objects the placeholders name (authz-matrix.ts, header comment). */
function targetOf(w: World, row: MatrixRow, actor: Actor): Objects {
  if (row.auth === 'admin' || actor === 'foreignObject') return w.b.objects;
  if (actor === 'foreignConsent') return { ...w.a.objects, vin: VIN4 };
  return w.a.objects;
}

/** Actors that present A's valid key (and A's subscription): they may see A's data, never B's. */
const AS_A: readonly Actor[] = ['owner', 'foreignObject', 'foreignConsent'];

function probeRequest(w: World, kind: Probe, headers: Record<string, string>, objects: Objects) {
  switch (kind) {
    case 'unknownSubscription':
      return { headers: { ...headers, 'x-subscription-id': randomUUID() }, objects };
    case 'missingObject':
      return { headers, objects: w.missing() };
    case 'unconsentedVin':
      return { headers, objects: { ...objects, vin: VIN5 } };
  }
}

/** The body with the request's own ids replaced by their names, to compare two answers. */
function normalized(body: string, headers: Record<string, string>, objects: Objects): string {
  const ids: [string, string][] = [...Object.entries(objects), ['subscription header', headers['x-subscription-id'] ?? '']];
  return ids.reduce((text, [name, value]) => (value === '' ? text : text.replaceAll(value, `<${name}>`)), body);
}

async function checkCell(t: TestApp, w: World, row: MatrixRow, actor: Actor, outcome: Outcome): Promise<void> {
  const label = `${rowLabel(row)} × ${actor}`;
  const headers = actorHeaders(w, actor);
  const objects = targetOf(w, row, actor);
  const res = await send(t, row, headers, objects);
  expect.soft(res.status, `${label}: status (body ${res.body.slice(0, 300)})`).toBe(outcome.status);
  const json = res.body === '' ? undefined : (JSON.parse(res.body) as Record<string, unknown>);
  if (outcome.reason !== undefined) expect.soft(json?.reasonText, `${label}: reasonText`).toBe(outcome.reason);
  if (outcome.body !== undefined) expect.soft(json, `${label}: body`).toMatchObject(outcome.body);
  for (const m of outcome.shows ?? []) expect.soft(res.body, `${label}: shows its own ${m}`).toContain(w.a.own[m]);

  if (!outcome.operator) {
    const forbidden = AS_A.includes(actor) && row.auth !== 'admin' ? w.b.secrets : [...w.a.secrets, ...w.b.secrets];
    const leaked = forbidden.filter((s) => !res.request.includes(s) && res.body.includes(s));
    expect.soft(leaked, `${label}: values of a tenant the caller may not see`).toEqual([]);
  }
  if (outcome.sameAs !== undefined) {
    const p = probeRequest(w, outcome.sameAs, headers, objects);
    const other = await send(t, row, p.headers, p.objects);
    expect.soft(other.status, `${label}: status like ${outcome.sameAs}`).toBe(res.status);
    expect.soft(normalized(res.body, headers, objects), `${label}: body like ${outcome.sameAs}`).toBe(normalized(other.body, p.headers, p.objects));
  }
  // HEAD shares the GET route's hooks; a refusal must hold for it too.
  if (row.method === 'GET' && outcome.status >= 400 && !AS_A.includes(actor)) {
    const head = await send(t, row, headers, objects, 'HEAD');
    expect.soft(head.status, `${label}: HEAD`).toBe(outcome.status);
  }
}

describe('authorization matrix (BOLA and tenant isolation)', () => {
  let t: TestApp;
  let routes: Registered[];

  beforeAll(async () => {
    ({ t, routes } = await appWithRoutes());
  });
  afterAll(async () => t.cleanup());

  for (const row of MATRIX) {
    it(rowLabel(row), async () => {
      const w = await createWorld(t);
      const before = { a: await tenantState(t, w.a), b: await tenantState(t, w.b) };
      // The rightful caller goes last: refused attempts must have left its objects usable
      // (a foreign confirmation did not consume the code, a foreign replay did not requeue).
      const rightful: Actor = row.auth === 'admin' ? 'adminToken' : 'owner';
      for (const actor of [...ACTORS.filter((a) => a !== rightful), rightful]) {
        const cell = row.cells[actor];
        if (actor === rightful) {
          expect.soft(await tenantState(t, w.a), `${rowLabel(row)}: A's state after the others`).toBe(before.a);
          expect.soft(await tenantState(t, w.b), `${rowLabel(row)}: B's state after the others`).toBe(before.b);
        }
        if (!isNotApplicable(cell)) await checkCell(t, w, row, actor, cell);
      }
      if (row.auth !== 'admin') expect.soft(await tenantState(t, w.b), `${rowLabel(row)}: B's state after A's own call`).toBe(before.b);
    });
  }

  it('covers every registered route: a new route needs a matrix row or a public entry', () => {
    const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url));
    // The HEAD of a public GET is public too (@fastify/swagger adds one for `/docs/` alone).
    const sameMethod = (p: { method: string }, r: Registered) => p.method === r.method || (r.method === 'HEAD' && p.method === 'GET');
    const isPublic = (r: Registered) =>
      PUBLIC_ROUTES.some((p) => sameMethod(p, r) && (p.prefix ? r.url === p.route || r.url.startsWith(`${p.route}/`) : r.url === p.route));
    const uncovered = routes
      // Fastify's automatic HEAD of a GET route runs the GET's hooks (the runner sends HEAD too).
      .filter((r) => !(r.method === 'HEAD' && gets.has(r.url)))
      .filter((r) => !MATRIX.some((row) => row.method === r.method && row.route === r.url) && !isPublic(r))
      .map((r) => `${r.method} ${r.url}`);
    expect(routes.length).toBeGreaterThan(40);
    expect(uncovered, 'routes with neither an authorization row nor a public entry').toEqual([]);
  });

  it('names only routes that exist (no stale rows)', () => {
    const registered = new Set(routes.map((r) => `${r.method} ${r.url}`));
    const stale = [...MATRIX.map((r) => `${r.method} ${r.route}`), ...PUBLIC_ROUTES.filter((p) => !p.prefix).map((p) => `${p.method} ${p.route}`)];
    expect(stale.filter((r) => !registered.has(r)), 'matrix or public entries for routes the app does not have').toEqual([]);
  });

  it('agrees with the OpenAPI document on which credentials each operation takes', () => {
    const disagreements: string[] = [];
    for (const op of operations(t.app)) {
      const route = op.path.replace(/\{([^}]+)\}/g, ':$1');
      const kind = authOf(op.op);
      const rows = MATRIX.filter((r) => r.method === op.method && r.route === route);
      if (kind === 'none' && rows.length > 0) disagreements.push(`${op.method} ${route}: public in the document, in the matrix`);
      if (kind !== 'none' && rows.length === 0) disagreements.push(`${op.method} ${route}: needs ${kind}, no matrix row`);
      for (const r of rows) if (r.auth !== kind) disagreements.push(`${rowLabel(r)}: matrix says ${r.auth}, document ${kind}`);
    }
    expect(disagreements).toEqual([]);
  });
});
