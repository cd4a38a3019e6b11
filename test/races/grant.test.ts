import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { grantConsent } from '../../src/consent/process.ts';
import type { Services } from '../../src/services.ts';
import { addConsumer, type TestConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { seedProcess } from '../consent/seed.ts';
import { createRaceLab } from './race-lab.ts';

/**
 * Two consent processes of one subscription and VIN reach the manufacturer's grant at the same
 * moment (the user consented twice, in two tabs), under fc.scheduler with every store call a
 * scheduling point, on the real SQLite store. Whatever the interleaving, exactly one consent
 * stays active, the newest (latest activation, then smallest consentId: what findActive and
 * delivery use), and the other is SUPERSEDED. Before, each grant superseded every other active
 * one, so two grants could leave none active.
 */
describe('races: two grants for one subscription and VIN', () => {
  const lab = createRaceLab();
  const clock = new ManualClock('2026-03-01T08:00:00.000Z');
  let t: TestServices;
  let raced: Services;
  let a: TestConsumer;

  beforeAll(async () => {
    t = await createTestServices({ clock });
    raced = { ...t.services, store: lab.wrap(t.services.store) };
    a = await addConsumer(t, { name: 'A' });
  });
  afterAll(() => t.cleanup());

  it('exactly one stays active, the newest; the other is SUPERSEDED', async () => {
    const orders = new Set<string>();
    let vinSeq = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.boolean(), async (s, sameInstant) => {
        const vin = `V1RTUALV1NR${String(++vinSeq).padStart(6, '0')}`;
        const seeded = [];
        for (let i = 0; i < 2; i++) {
          seeded.push((await seedProcess(t, a, { vin, state: 'EXCHANGING_TOKEN', activatedAt: null, codeHash: null, history: [] })).record);
        }
        const at = (i: number) => new Date(clock.now().getTime() + (sameInstant ? 0 : i));
        lab.begin(s);
        try {
          const grants = seeded.map((r, i) => lab.as(`grant${i}`, () => grantConsent(raced.store, r.consentId, { at: at(i), set: { activatedAt: at(i).toISOString() } })));
          await s.waitFor(Promise.all(grants));
          await s.waitIdle();
        } finally {
          lab.end();
        }
        orders.add(lab.trace.map((c) => c.actor).join(','));
        const newest = sameInstant ? [...seeded.map((r) => r.consentId)].sort()[0] : seeded[1]!.consentId;
        const states = await Promise.all(seeded.map(async (r) => [r.consentId, (await t.services.store.consents.get(r.consentId))!.state] as const));
        expect(states.filter(([, state]) => state === 'ACTIVE')).toEqual([[newest, 'ACTIVE']]);
        expect(states.filter(([, state]) => state === 'SUPERSEDED')).toHaveLength(1);
        expect(await t.services.store.consents.findActive(a.subscriptionId, vin)).toMatchObject({ consentId: newest });
      }),
      { numRuns: 100 },
    );
    // The scheduler really interleaved the two grants.
    expect(orders.size).toBeGreaterThan(2);
  });
});
