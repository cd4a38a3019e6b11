import fc, { type AsyncCommand } from 'fast-check';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { waitFor } from '../pipeline/harness.ts';
import { deliveryBody, payloadFor, seedPoints } from '../delivery/fixtures.ts';
import { Browser, params, REDIRECT, runFlow } from './harness.ts';
import {
  ACTIVE_STATES,
  expectedRead,
  expectedRedeem,
  other,
  SUBS,
  type Activation,
  type Model,
  type ModelConsent,
  type Real,
  type Sub,
} from './lifecycle-model-state.ts';

/**
 * The commands of the consent-lifecycle model test. Each `run` makes
 * the real HTTP call, asserts the answer the model predicts, then moves the model on. Commands
 * name processes by a number the model resolves (n-th process), so a shrunk run stays valid.
 */
type Cmd = AsyncCommand<Model, Real>;

export const VINS = 3;
const ITEM = 'batteryvoltage';
const ADMIN = { authorization: 'Bearer test-admin-token' };

const inject = (r: Real, opts: InjectOptions) => r.t.app.inject(opts);
const headersOf = (r: Real, s: Sub) => r.consumers[s].headers;
const vinStatus = async (r: Real, s: Sub, vin: string) => {
  const res = await inject(r, { method: 'GET', url: `/management/v1/vehicles/${vin}`, headers: headersOf(r, s) });
  return res.statusCode === 404 ? 'NONE' : (res.json().status as string);
};
const pick = <T>(items: T[], n: number): T => items[n % items.length]!;
const withCode = (m: Readonly<Model>) => m.consents.map((c, i) => ({ c, i })).filter((x) => x.c.hasCode);
/** Marks the matching processes ERASED; returns how many the service still held. */
const eraseConsents = (m: Model, match: (c: ModelConsent) => boolean) => {
  const held = m.consents.filter((c) => c.state !== 'ERASED' && match(c));
  for (const c of held) c.state = 'ERASED';
  return held.length;
};

/** The whole browser flow (portal → manufacturer → callback); the user allows or denies. */
export async function giveConsent(m: Model, r: Real, sub: Sub, vin: number, deny: boolean): Promise<void> {
  // A flow takes time: the newer of two consents is the one activated later (not one activated
  // in the same millisecond, whose order the service does not define).
  m.nowMs += 1;
  r.clock.advance(1);
  const flow = await runFlow(r.t, r.consumers[sub], new Browser(), {
    params: { vin: r.vins[vin] },
    ...(deny ? { manufacturer: { form: { decision: 'deny' } } } : {}),
  });
  expect(flow.callback.status).toBe(303);
  expect(flow.callback.location!.startsWith(`${REDIRECT}?`)).toBe(true);
  const q = params(flow.callback.location);
  expect(q.get('consent_id')).toBe(flow.consentId);
  if (deny) {
    expect(q.get('error')).toBe('access_denied');
    expect(q.has('code')).toBe(false);
  } else {
    expect(q.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // One active consent per subscription and vehicle: the newer one replaces the older.
    for (const c of m.consents) if (c.sub === sub && c.vin === vin && ACTIVE_STATES.includes(c.state)) c.state = 'SUPERSEDED';
  }
  m.consents.push({ sub, vin, state: deny ? 'FAILED' : 'ACTIVE', givenAtMs: m.nowMs, hasCode: !deny });
  r.issued.push({ consentId: flow.consentId, code: deny ? null : q.get('code') });
}

class GiveConsent implements Cmd {
  constructor(readonly sub: Sub, readonly vin: number, readonly deny: boolean) {}
  check = () => true;
  run = (m: Model, r: Real) => giveConsent(m, r, this.sub, this.vin, this.deny);
  toString = () => `GiveConsent(${this.sub}, vin${this.vin}${this.deny ? ', deny' : ''})`;
}

/** POST /api/consent/provisioning/confirmation/:code with the owner's key, or the other consumer's. */
class Redeem implements Cmd {
  constructor(readonly n: number, readonly byOther: boolean) {}
  check = (m: Readonly<Model>) => withCode(m).length > 0;
  async run(m: Model, r: Real) {
    const { c, i } = pick(withCode(m), this.n);
    const { consentId, code } = r.issued[i]!;
    const key = r.consumers[this.byOther ? other(c.sub) : c.sub].apiKey;
    const res = await inject(r, { method: 'POST', url: `/api/consent/provisioning/confirmation/${code}`, headers: { 'x-api-key': key } });
    const want = expectedRedeem(m, c, this.byOther);
    r.seen.add(`redeem ${want.status}`);
    expect({ process: i, state: c.state, status: res.statusCode }, res.body).toEqual({ process: i, state: c.state, status: want.status });
    if (want.status === 409) expect(res.json().reasonText).toMatch(want.reason);
    if (want.status !== 200) return;
    expect(res.json()).toEqual({
      consentId,
      vin: r.vins[c.vin],
      subscriptionId: r.consumers[c.sub].subscriptionId,
      confirmedAt: new Date(m.nowMs).toISOString(),
      consentGivenAt: new Date(c.givenAtMs).toISOString(),
    });
    c.state = 'CONFIRMED';
  }
  toString = () => `Redeem(#${this.n}${this.byOther ? ', other key' : ''})`;
}

/** DELETE /consent/v1/consents/:id in the owning subscription, or in the other consumer's. */
class Revoke implements Cmd {
  constructor(readonly n: number, readonly byOther: boolean) {}
  check = (m: Readonly<Model>) => m.consents.length > 0;
  async run(m: Model, r: Real) {
    const i = this.n % m.consents.length;
    const c = m.consents[i]!;
    const { consentId } = r.issued[i]!;
    const res = await inject(r, { method: 'DELETE', url: `/consent/v1/consents/${consentId}`, headers: headersOf(r, this.byOther ? other(c.sub) : c.sub) });
    if (c.state === 'ERASED' || this.byOther) {
      expect({ process: i, status: res.statusCode }, res.body).toEqual({ process: i, status: 404 });
      expect(res.json()).toMatchObject({ reasonCode: 'CAR.404', reasonText: 'Consent not found.' });
      return;
    }
    // Revoking ends an active process; one that already ended is answered unchanged.
    const next = ACTIVE_STATES.includes(c.state) ? 'REVOKED' : c.state;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ consentId, state: next, active: false });
    c.state = next;
  }
  toString = () => `Revoke(#${this.n}${this.byOther ? ', other subscription' : ''})`;
}

/** POST /delivery/v1/in-vehicle for every VIN of the run, in both subscriptions. */
class Read implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    for (const sub of SUBS) {
      const res = await inject(r, { method: 'POST', url: '/delivery/v1/in-vehicle', headers: headersOf(r, sub), payload: deliveryBody(r.vins, [ITEM]) });
      expect(res.statusCode).toBe(200);
      const got = (res.json().inVehicleData as { error?: { code: string }; response?: Record<string, unknown> }[]).map((e) => e.error?.code ?? e.response);
      const want = r.vins.map((_, vin) => {
        const x = expectedRead(m, sub, vin);
        if ('vehicleError' in x) return x.vehicleError;
        const item = x.point
          ? { dataPoint: payloadFor(ITEM, new Date(x.point.atMs), x.point.value) }
          : { error: { code: 'CAR.VE.908', message: expect.any(String) } };
        return { [ITEM]: item };
      });
      expect({ sub, answers: got }).toEqual({ sub, answers: want });
      for (const x of want) r.seen.add(`read ${typeof x === 'string' ? x : 'dataPoint' in x[ITEM]! ? 'data' : 'CAR.VE.908'}`);
    }
  }
  toString = () => 'Read()';
}

/** GET /consent/v1/consents: exactly the subscription's processes the model still knows, in their states. */
class List implements Cmd {
  constructor(readonly sub: Sub) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const res = await inject(r, { method: 'GET', url: '/consent/v1/consents', headers: headersOf(r, this.sub) });
    expect(res.statusCode).toBe(200);
    const got = (res.json() as { consentId: string; vin: string; state: string; active: boolean }[]).map(({ consentId, vin, state, active }) => ({ consentId, vin, state, active }));
    const want = m.consents
      .map((c, i) => ({ c, i }))
      .filter(({ c }) => c.sub === this.sub && c.state !== 'ERASED')
      .map(({ c, i }) => ({ consentId: r.issued[i]!.consentId, vin: r.vins[c.vin], state: c.state, active: ACTIVE_STATES.includes(c.state) }));
    const byId = (a: { consentId: string }, b: { consentId: string }) => a.consentId.localeCompare(b.consentId);
    expect(got.sort(byId)).toEqual(want.sort(byId));
  }
  toString = () => `List(${this.sub})`;
}

const PUT_STATUS: Record<'activate' | 'deactivate', Record<Activation, string>> = {
  activate: { NONE: 'PENDING_ACTIVATION', DEACTIVATED: 'PENDING_ACTIVATION', ACTIVATED: 'ACTIVATED' },
  deactivate: { NONE: 'DEACTIVATED', DEACTIVATED: 'DEACTIVATED', ACTIVATED: 'PENDING_DEACTIVATION' },
};

/** PUT /management/v1/vehicles, then wait for the manufacturer's answer (the activation worker). */
export async function setActivation(m: Model, r: Real, sub: Sub, action: 'activate' | 'deactivate', vins: number[]): Promise<void> {
  const res = await inject(r, { method: 'PUT', url: '/management/v1/vehicles', headers: headersOf(r, sub), payload: { action, vins: vins.map((v) => r.vins[v]) } });
  expect(res.statusCode).toBe(202);
  expect(res.json()).toEqual(vins.map((v) => ({ vin: r.vins[v], status: PUT_STATUS[action][m.activation[sub][v]!] })));
  for (const v of vins) {
    const final = action === 'activate' ? 'ACTIVATED' : m.activation[sub][v] === 'NONE' ? 'NONE' : 'DEACTIVATED';
    await waitFor(async () => (await vinStatus(r, sub, r.vins[v]!)) === final, 10_000, `vin${v} ${final} in ${sub}`);
    m.activation[sub][v] = final;
  }
}

class SetActivation implements Cmd {
  constructor(readonly sub: Sub, readonly vin: number, readonly action: 'activate' | 'deactivate') {}
  check = () => true;
  run = (m: Model, r: Real) => setActivation(m, r, this.sub, this.action, [this.vin]);
  toString = () => `${this.action}(${this.sub}, vin${this.vin})`;
}

/** New telemetry for a VIN, stored as the pipeline stores it. */
export async function dataArrives(m: Model, r: Real, vin: number, value: number): Promise<void> {
  const atMs = m.nextPointMs;
  m.nextPointMs += 1000;
  await seedPoints(r.t, r.vins[vin]!, [ITEM], new Date(atMs), value);
  m.latest[vin] = { value, atMs };
  m.points[vin]! += 1;
}

class DataArrives implements Cmd {
  constructor(readonly vin: number, readonly value: number) {}
  check = () => true;
  run = (m: Model, r: Real) => dataArrives(m, r, this.vin, this.value);
  toString = () => `DataArrives(vin${this.vin}, ${this.value})`;
}

/** DELETE /admin/v1/vehicles/:vin/data (VIN-wide) or /admin/v1/subscriptions/:id/vehicles/:vin/data. */
class Erase implements Cmd {
  constructor(readonly vin: number, readonly sub: Sub | null) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const vin = r.vins[this.vin]!;
    const url = this.sub ? `/admin/v1/subscriptions/${r.consumers[this.sub].subscriptionId}/vehicles/${vin}/data` : `/admin/v1/vehicles/${vin}/data`;
    const res = await inject(r, { method: 'DELETE', url, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    const subs = this.sub ? [this.sub] : SUBS;
    const want = {
      dataPoints: this.sub ? 0 : m.points[this.vin],
      consents: eraseConsents(m, (c) => c.vin === this.vin && subs.includes(c.sub)),
      activations: subs.filter((s) => m.activation[s][this.vin] !== 'NONE').length,
    };
    const { erased, notErased } = res.json();
    expect({ dataPoints: erased.dataPoints, consents: erased.consents, activations: erased.activations, notErased }).toEqual({ ...want, notErased: { unreadableJobs: 0, activeJobs: 0 } });
    for (const s of subs) m.activation[s][this.vin] = 'NONE';
    if (!this.sub) {
      m.latest[this.vin] = null;
      m.points[this.vin] = 0;
    }
  }
  toString = () => `Erase(vin${this.vin}${this.sub ? ` in ${this.sub}` : ''})`;
}

/** Time passes (the injected clock): codes older than CONSENT_CODE_TTL_S stop working. */
class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    r.clock.advance(this.ms);
    m.nowMs += this.ms;
  }
  toString = () => `Advance(${this.ms} ms)`;
}

/** Time passes up to the last instant a code may be redeemed, or one millisecond past it. */
class AdvanceToDeadline implements Cmd {
  constructor(readonly n: number, readonly pastBy: 0 | 1) {}
  private target = (m: Readonly<Model>) => {
    const open = withCode(m).filter(({ c }) => c.state === 'ACTIVE' && c.givenAtMs + m.ttlMs + this.pastBy >= m.nowMs);
    return open.length === 0 ? null : pick(open, this.n).c.givenAtMs + m.ttlMs + this.pastBy;
  };
  check = (m: Readonly<Model>) => this.target(m) !== null;
  run = (m: Model, r: Real) => new Advance(this.target(m)! - m.nowMs).run(m, r);
  toString = () => `AdvanceToDeadline(#${this.n}${this.pastBy ? ' + 1 ms' : ''})`;
}

const sub = fc.constantFrom<Sub>(...SUBS);
const vin = fc.nat(VINS - 1);
const n = fc.nat(20);

/** Weighted by repetition: the lifecycle's own steps come most often, reads after them. */
export const commandArbitraries: fc.Arbitrary<Cmd>[] = [
  fc.tuple(sub, vin, fc.boolean()).map(([s, v, deny]) => new GiveConsent(s, v, deny)),
  fc.tuple(sub, vin).map(([s, v]) => new GiveConsent(s, v, false)),
  fc.tuple(n, fc.boolean()).map(([i, byOther]) => new Redeem(i, byOther)),
  n.map((i) => new Redeem(i, false)),
  n.map((i) => new Redeem(i, false)),
  fc.tuple(n, fc.boolean()).map(([i, byOther]) => new Revoke(i, byOther)),
  fc.constant(new Read()),
  fc.constant(new Read()),
  fc.constant(new Read()),
  sub.map((s) => new List(s)),
  fc.tuple(sub, vin, fc.constantFrom('activate' as const, 'deactivate' as const)).map(([s, v, a]) => new SetActivation(s, v, a)),
  fc.tuple(vin, fc.integer({ min: 0, max: 99 })).map(([v, x]) => new DataArrives(v, x)),
  fc.tuple(vin, fc.option(sub, { nil: null })).map(([v, s]) => new Erase(v, s)),
  fc.constantFrom(1, 5 * 60_000).map((ms) => new Advance(ms)),
  fc.tuple(n, fc.constantFrom<0 | 1>(0, 1)).map(([i, pastBy]) => new AdvanceToDeadline(i, pastBy)),
];
