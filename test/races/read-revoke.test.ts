import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { addConsumer, type TestConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { deliveryBody, giveConsent, seedPoints, setVehicle, VIN1 } from '../delivery/fixtures.ts';
import { createRaceLab } from './race-lab.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

type Outcome = 'data' | 'CAR.VE.905';

/**
 * A withdrawal takes effect at once, under fc.scheduler: delivery reads (POST /delivery/v1/in-vehicle) racing the
 * consumer's revocation (DELETE /consent/v1/consents/:id), both through the real HTTP app on
 * the real SQLite store and Redis (rate limits, cache invalidation), every store call a
 * scheduling point, under the delivery read model (src/read-model), whose fills race the
 * revocation too. Every read after DELETE has answered gets CAR.VE.905 and no data; a read that
 * checked the consent in the store itself is answered as that check found it; a read answered
 * from the cache got data only from a fill that read the store before the revocation.
 */
describe('races: delivery reads racing a consent revocation', () => {
  const lab = createRaceLab();
  let t: TestServices;
  let app: FastifyInstance;
  let c: TestConsumer;

  beforeAll(async () => {
    t = await createTestServices({
      env: { RATE_LIMIT_SUBSCRIPTION_MAX: '1000000', RATE_LIMIT_VEHICLE_MAX: '1000000' },
      wrapStore: (store) => lab.wrap(store),
    });
    c = await addConsumer(t, { dataItems: ['batteryvoltage'] });
    await setVehicle(t, c, VIN1);
    await seedPoints(t, VIN1, ['batteryvoltage'], new Date('2026-03-01T09:00:00.000Z'));
    app = await buildApp(t.services, routeContexts(t.services));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await t.cleanup();
  });

  const read = async (): Promise<Outcome> => {
    const res = await app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: c.headers, payload: deliveryBody([VIN1], ['batteryvoltage']) });
    expect(res.statusCode).toBe(200);
    const [entry] = res.json().inVehicleData;
    if (entry.error) return entry.error.code;
    expect(entry.response.batteryvoltage.dataPoint).toMatchObject({ timestamp: '2026-03-01T09:00:00.000Z' });
    return 'data';
  };

  it('a read sees data only if its consent check came before the revocation; after DELETE answered, none does', async () => {
    const seen = new Set<Outcome>();
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 1, max: 2 }), fc.nat({ max: 12 }), async (s, n, startAfter) => {
        const consentId = await giveConsent(t, c, VIN1);
        lab.begin(s);
        let outcomes: Outcome[];
        let late: Outcome;
        try {
          const reads = Promise.all(Array.from({ length: n }, (_, i) => lab.as(`read${i}`, read)));
          const revokeThenRead = lab.as('revoke', async () => {
            // The DELETE arrives after `startAfter` store calls of the reads (or after them all).
            await Promise.race([lab.afterCalls(startAfter), reads]);
            const res = await app.inject({ method: 'DELETE', url: `/consent/v1/consents/${consentId}`, headers: c.headers });
            expect(res.json()).toMatchObject({ state: 'REVOKED', active: false });
            return lab.as('late', read);
          });
          [outcomes, late] = await s.waitFor(Promise.all([reads, revokeThenRead]));
          await s.waitIdle();
        } finally {
          lab.end();
        }

        const revokedAt = lab.at('revoke', 'consents.transition');
        expect(late).toBe('CAR.VE.905');
        outcomes.forEach((outcome, i) => {
          seen.add(outcome);
          // A read wholly before the DELETE reached the store sees data; one wholly after the
          // revocation, none. (A read answered wholly from the cache made no store call: -1.)
          if (lab.last(`read${i}`) !== -1 && lab.last(`read${i}`) < lab.first('revoke')) expect(outcome).toBe('data');
          if (lab.first(`read${i}`) > revokedAt) expect(outcome).toBe('CAR.VE.905');
          const checked = lab.at(`read${i}`, 'consents.activeVins');
          if (checked !== -1) expect(outcome).toBe(checked < revokedAt ? 'data' : 'CAR.VE.905');
          else if (outcome === 'data') {
            // Answered from the cache: some read's fill checked the store before the revocation.
            const fill = lab.trace.findIndex((call) => call.op === 'consents.activeVins');
            expect(fill).not.toBe(-1);
            expect(fill).toBeLessThan(revokedAt);
          }
        });
      }),
      { numRuns: 100 },
    );
    // Both sides of the line were explored.
    expect(seen).toEqual(new Set(['data', 'CAR.VE.905']));
  });
});
