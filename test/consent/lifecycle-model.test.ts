import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { startActivationWorkers } from '../../src/management/start.ts';
import type { Running } from '../../src/running.ts';
import { fleetVin } from '../../simulator/src/fleet.ts';
import { consumerWith, startLiveApp, type LiveApp } from './harness.ts';
import { commandArbitraries, dataArrives, giveConsent, setActivation, VINS } from './lifecycle-model-commands.ts';
import { SUBS, type Model, type Real } from './lifecycle-model-state.ts';

/**
 * A model-based test of the consent lifecycle (give consent → redeem the code → read data →
 * revoke → erase, with activation, new telemetry and passing time in between) as random command
 * sequences, each checked against a small model (lifecycle-model-state.ts). Everything runs
 * through the real service: the app listening on a port, the portal and the simulated
 * manufacturer's OAuth server, the activation worker, the SQLite store and Redis.
 *
 * Every run starts fresh: two new consumers (A and B, one subscription each) and three new
 * virtual VINs, all activated in both subscriptions (through the management API and the
 * worker) and with one data point each; A has consented for VIN 0 and B for VIN 1 through the
 * real flow, their codes not yet redeemed, so the first command can already redeem or read.
 * A failure prints the shrunk command sequence, `{ seed, path, endOnFailure: true }` and a
 * `replayPath`: to replay it, pass the first to fc.assert and `replayPath` to fc.commands.
 */
describe('consent lifecycle against a model (fc.commands)', () => {
  const clock = new ManualClock('2026-03-01T08:00:00.000Z');
  let t: LiveApp;
  let workers: Running[] = [];
  let run = 0;
  const seen = new Set<string>();

  beforeAll(async () => {
    t = await startLiveApp({
      clock,
      env: {
        // Fleet VINs belong to the virtual manufacturer when below SIM_FLEET_SIZE; it answers at once.
        SIM_FLEET_SIZE: '1000000',
        VIRTUAL_ACTIVATION_DELAY_MS: '0',
        RATE_LIMIT_SUBSCRIPTION_MAX: '1000000',
        RATE_LIMIT_VEHICLE_MAX: '1000000',
      },
    });
    workers = await startActivationWorkers(t.services);
  });
  afterAll(async () => {
    for (const w of workers) await w.close();
    await t?.cleanup();
  });

  const setup = async (): Promise<{ model: Model; real: Real }> => {
    const base = 900_000 + VINS * run++;
    const consumers = { A: await consumerWith(t, { name: 'A' }), B: await consumerWith(t, { name: 'B' }) };
    const real: Real = { t, clock, consumers, vins: Array.from({ length: VINS }, (_, i) => fleetVin(base + i)), issued: [], seen };
    const nowMs = clock.now().getTime();
    const model: Model = {
      nowMs,
      ttlMs: t.services.config.CONSENT_CODE_TTL_S * 1000,
      activation: { A: Array(VINS).fill('NONE'), B: Array(VINS).fill('NONE') },
      consents: [],
      latest: Array(VINS).fill(null),
      points: Array(VINS).fill(0),
      nextPointMs: nowMs - 3_600_000,
    };
    const all = real.vins.map((_, i) => i);
    for (const s of SUBS) await setActivation(model, real, s, 'activate', all);
    for (const v of all) await dataArrives(model, real, v, 10 + v);
    await giveConsent(model, real, 'A', 0, false);
    await giveConsent(model, real, 'B', 1, false);
    return { model, real };
  };

  it('every answer matches the model, for random command sequences', async () => {
    try {
      await fc.assert(
        fc.asyncProperty(fc.commands(commandArbitraries, { maxCommands: 15, size: 'max' }), (cmds) => fc.asyncModelRun(setup, cmds)),
        { numRuns: 25 },
      );
    } catch (err) {
      // What the service logged as a warning or an error says why an answer differed.
      console.error(t.logs.filter((l) => /"level":(40|50|60)/.test(l)).slice(-20).join(''));
      throw err;
    }
    // Not vacuous: some codes were redeemed, and reads both returned data and were refused
    // (a replay of one case, with seed and path, may reach fewer once its failure is fixed).
    expect([...seen]).toEqual(expect.arrayContaining(['redeem 200', 'read data', 'read CAR.VE.905']));
  }, 120_000);
});
