import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsBetween } from '../../simulator/src/events.ts';
import { sample } from '../../simulator/src/sample.ts';
import { loadScenarios, ScenarioError } from '../../simulator/src/scenario-load.ts';
import { loadVirtualVins } from '../../simulator/src/virtual-vins.ts';
import { customScenario, SCENARIOS_DIR } from './fixtures.ts';

/* Scenario files: the thirteen are data, a data engineer adds a vehicle with a file, a broken file stops the start naming it. */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function scenarioDir(extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'cvd-scenarios-'));
  dirs.push(dir);
  for (const f of readdirSync(SCENARIOS_DIR)) copyFileSync(join(SCENARIOS_DIR, f), join(dir, f));
  for (const [name, content] of Object.entries(extra)) {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

const base = () => JSON.parse(JSON.stringify(customScenario)) as typeof customScenario & Record<string, unknown>;

function loadError(extra: Record<string, unknown>): ScenarioError {
  try {
    loadScenarios(scenarioDir(extra));
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return err as ScenarioError;
  }
  throw new Error('the scenarios loaded');
}

describe('scenario files', () => {
  it('the committed folder defines exactly the thirteen VINs of the spec', () => {
    expect([...loadVirtualVins(SCENARIOS_DIR)].sort()).toEqual(
      ['0000001', '0000002', '0000003', '0000004', '0000S05', '0000S06', '0000S07', '0000S08', '0000S09', '0000S10', '0000S11', '0000S12', '0000S13'].map(
        (s) => `V1RTUALV1N${s}`,
      ),
    );
  });

  it('a file added to the folder defines a new virtual VIN with its declared behaviour, no code', () => {
    const dir = scenarioDir({ 'c000042-van.json': customScenario });
    expect(loadVirtualVins(dir).has('V1RTUALV1NC000042')).toBe(true);
    const v = loadScenarios(dir).find((s) => s.vehicle.vin === 'V1RTUALV1NC000042')!.vehicle;
    const driving = sample(v, new Date('2026-11-25T09:00:00Z'));
    const charging = sample(v, new Date('2026-11-25T12:30:00Z'));
    expect(driving.signals.motion.speedKmh).toBeGreaterThan(0);
    expect(charging.signals.traction!.charging).toMatchObject({ status: 'ACTIVE', method: 'DIRECT', plug: 'CONNECTED' });
    expect(driving.signals.lowVoltage!.socPct).toBeGreaterThanOrEqual(70);
    expect(driving.signals.lowVoltage!.socPct).toBeLessThanOrEqual(75);
    const events = eventsBetween(v, new Date('2026-11-25T11:00:00Z'), new Date('2026-11-25T13:00:00Z'));
    expect(events.map((e) => e.event)).toEqual([{ type: 'TELESERVICE_CALL', reason: 'Tyre service' }]);
  });

  it.each([
    ['not JSON', '{ "vin": ', /not valid JSON/],
    ['an unknown field', { ...base(), colour: 'red' }, /additional properties: colour/],
    ['an invalid VIN (I, O and Q are not VIN characters)', { ...base(), vin: 'V1RTUALV1NO000042' }, /\/vin/],
    ['a VIN of the load-test fleet (V1RTUALV1NF + 6 digits)', { ...base(), vin: 'V1RTUALV1NF000001' }, /\/vin must match pattern .*reserved_for_the_load_test_fleet/],
    ['a bad time of day', { ...base(), schedule: [{ activity: 'drive', from: '25:00', to: '26:00' }] }, /\/schedule\/0\/from/],
    ['a signal that is not overridable', { ...base(), signals: { 'motion.speedKmh': { constant: 0 } } }, /motion.speedKmh/],
    ['a range upside down', { ...base(), signals: { 'lowVoltage.mainV': { min: 14, max: 12 } } }, /min 14 is above max 12/],
    [
      'overlapping windows',
      { ...base(), schedule: [...base().schedule, { activity: 'drive', from: '11:00', to: '12:30' }] },
      /overlaps another window/,
    ],
    ['a refuel stop on an electric vehicle', { ...base(), schedule: [{ activity: 'refuel', from: '01:00', to: '01:10', targetPct: 90 }] }, /replenishes by "charge"/],
    ['no stop at all', { ...base(), schedule: [{ activity: 'drive', from: '08:00', to: '09:00' }] }, /needs at least one charge stop/],
    ['a battery that runs flat', { ...base(), energy: { capacity: 20, consumptionPer100Km: 30 } }, /runs out of charge/],
    ['a level outside keepWithinPct', { ...base(), energy: { capacity: 110, consumptionPer100Km: 22, keepWithinPct: [80, 100] } }, /leaves keepWithinPct \[80, 100\]/],
    ['a diesel group on a petrol car', { ...base(), powertrain: 'COMBUSTION', schedule: [{ activity: 'refuel', from: '01:00', to: '01:10', targetPct: 90 }], groups: { diesel: true } }, /only a DIESEL vehicle/],
  ])('a file with %s stops the load, naming the file', (_what, content, message) => {
    const err = loadError({ 'zz-broken.json': content });
    expect(err.file).toMatch(/zz-broken\.json$/);
    expect(err.message).toContain('zz-broken.json');
    expect(err.message).toMatch(message);
  });

  it('two files with one VIN stop the load, naming both', () => {
    const copy = readFileSync(join(SCENARIOS_DIR, '0000S08-light-crash-every-15-minutes.json'), 'utf8');
    const err = loadError({ 'zz-copy.json': copy });
    expect(err.message).toMatch(/zz-copy\.json.*already defined by .*0000S08-light-crash-every-15-minutes\.json/);
  });
});
