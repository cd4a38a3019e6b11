import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { confirmConsent, type ConfirmResult } from '../../src/consent/confirm.ts';
import { revokeConsent } from '../../src/consent/consumer-api.ts';
import type { Services } from '../../src/services.ts';
import { addConsumer, type TestConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { seedProcess } from '../consent/seed.ts';
import { createRaceLab } from './race-lab.ts';
import { consentContext } from '../../src/main/contexts.ts';

/**
 * A code is redeemed at most once, under fc.scheduler: redemptions of one confirmation code, with every store
 * call of confirmConsent (the service behind POST .../confirmation/:code) a scheduling point, on
 * the real SQLite store. Whatever the interleaving, the code is redeemed at most once; the
 * winner is the call whose conditional update reached the database first.
 */
describe('races: redeeming one confirmation code', () => {
  const lab = createRaceLab();
  let t: TestServices;
  let raced: Services;
  let a: TestConsumer;
  let b: TestConsumer;

  beforeAll(async () => {
    t = await createTestServices({ clock: new ManualClock('2026-03-01T08:00:00.000Z') });
    raced = { ...t.services, store: lab.wrap(t.services.store) };
    a = await addConsumer(t, { name: 'A' });
    b = await addConsumer(t, { name: 'B' });
  });
  afterAll(() => t.cleanup());

  const confirmAs = (i: number, code: string, apiKey = a.apiKey) =>
    lab.as(`confirm${i}`, () => confirmConsent(raced, code, apiKey, undefined));
  const history = async (consentId: string) => (await t.services.store.consents.get(consentId))!;
  const replays = async (consentId: string) =>
    (await t.services.store.audit.list({ type: 'consent.code_replay' })).filter((e) => e.subject === consentId);
  /** Where the actor's call reached the database; never (Infinity) when it made none. */
  const pos = (actor: string, op: string) => {
    const i = lab.at(actor, op);
    return i === -1 ? Infinity : i;
  };
  /** The confirm whose conditional update reached the database first. */
  const firstToUpdate = (n: number) =>
    Array.from({ length: n }, (_, i) => i).sort((x, y) => pos(`confirm${x}`, 'consents.transition') - pos(`confirm${y}`, 'consents.transition'))[0]!;
  /** Where the actor last read the process (the state its answer explains). */
  const lastRead = (actor: string) =>
    lab.trace.findLastIndex((c) => c.actor === actor && (c.op === 'consents.get' || c.op === 'consents.findByCodeHash'));

  it('2–3 racing redemptions (and another partner\'s key): one 200, the rest 409 "already confirmed", CONFIRMED once', async () => {
    const winners = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 3 }), fc.boolean(), async (s, n, withStranger) => {
        const { code, record } = await seedProcess(t, a);
        lab.begin(s);
        let results: ConfirmResult[];
        let stranger: ConfirmResult | null;
        try {
          const racing = Array.from({ length: n }, (_, i) => confirmAs(i, code));
          // Another partner's key is refused before anything changes, race or not.
          const strangerCall = withStranger ? lab.as('stranger', () => confirmConsent(raced, code, b.apiKey, undefined)) : Promise.resolve(null);
          [results, stranger] = await s.waitFor(Promise.all([Promise.all(racing), strangerCall]));
          await s.waitIdle();
        } finally {
          lab.end();
        }

        const winner = firstToUpdate(n);
        winners.add(winner);
        results.forEach((r, i) => {
          if (i === winner) expect(r.status).toBe(200);
          else expect(r).toEqual({ status: 409, reasonText: expect.stringMatching(/already confirmed/) });
        });
        if (withStranger) expect(stranger?.status).toBe(401);
        const stored = await history(record.consentId);
        expect(stored.state).toBe('CONFIRMED');
        expect(stored.history.filter((h) => h.state === 'CONFIRMED')).toHaveLength(1);
        const won = results[winner]!;
        expect(won.status === 200 && won.body.confirmedAt).toBe(stored.confirmedAt);
        // Every loser is a replay of a used code: one audit record each.
        expect(await replays(record.consentId)).toHaveLength(n - 1);
      }),
      { numRuns: 100 },
    );
    // The scheduler really reordered the calls: not always the first caller wins.
    expect([...winners].sort()).toEqual([0, 1, 2]);
  });

  it('redemptions racing a revocation: a 200 only if its update came first; the consent ends REVOKED', async () => {
    const outcomes = new Set<boolean>();
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 1, max: 3 }), async (s, n) => {
        const { code, record } = await seedProcess(t, a);
        lab.begin(s);
        let results: ConfirmResult[];
        let revoked: Awaited<ReturnType<typeof revokeConsent>>;
        try {
          const racing = Array.from({ length: n }, (_, i) => confirmAs(i, code));
          const revoking = lab.as('revoke', () => revokeConsent(consentContext(raced), a.subscriptionId, record.consentId));
          [results, revoked] = await s.waitFor(Promise.all([Promise.all(racing), revoking]));
          await s.waitIdle();
        } finally {
          lab.end();
        }

        const revokeAt = lab.at('revoke', 'consents.transition');
        const winner = firstToUpdate(n);
        const confirmedFirst = pos(`confirm${winner}`, 'consents.transition') < revokeAt;
        outcomes.add(confirmedFirst);
        results.forEach((r, i) => {
          if (confirmedFirst && i === winner) return expect(r.status).toBe(200);
          // A loser reads the process back to explain its 409: the revocation shows if it came first.
          const why = lastRead(`confirm${i}`) > revokeAt ? /revoked/ : /already confirmed/;
          expect(r).toEqual({ status: 409, reasonText: expect.stringMatching(why) });
        });
        expect(revoked?.state).toBe('REVOKED');
        const stored = await history(record.consentId);
        expect(stored.state).toBe('REVOKED');
        expect(stored.history.map((h) => h.state).slice(4)).toEqual(confirmedFirst ? ['CONFIRMED', 'REVOKED'] : ['REVOKED']);
      }),
      { numRuns: 100 },
    );
    expect(outcomes).toEqual(new Set([true, false]));
  });
});
