import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPaths } from '../../src/paths.ts';
import { loadSimulatedFleet } from '../../src/virtual/kestrel/fleet.ts';

const paths = defaultPaths();

/** A polled manufacturer's simulated vehicles are data in its adapter folder, not code. */
describe('adapters/<id>/simulated-fleet.json', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const adapterDir = (fleet?: unknown) => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-fleet-'));
    if (fleet !== undefined) writeFileSync(join(dir, 'simulated-fleet.json'), JSON.stringify(fleet));
    return dir;
  };

  it("gives Kestrel its four vehicles, each driven by its scenario under its own VIN", () => {
    const fleet = loadSimulatedFleet(join(paths.adapters, 'kestrel'), paths.scenarios, ['KESTRELV1N']);
    expect([...fleet.keys()]).toEqual(['KESTRELV1N0000001', 'KESTRELV1N0000002', 'KESTRELV1N0000003', 'KESTRELV1N0000004']);
    for (const [vin, vehicle] of fleet) expect(vehicle.vin).toBe(vin);
    expect(fleet.get('KESTRELV1N0000002')!.scenario.vin).toBe('V1RTUALV1N0000001');
  });

  it('serves no vehicle for a folder without the file (a fresh scaffold)', () => {
    expect(loadSimulatedFleet(adapterDir(), paths.scenarios, ['HAWK'])).toEqual(new Map());
  });

  it('refuses a VIN outside the adapter prefixes and a scenario that does not exist, naming the file', () => {
    const outside = adapterDir({ vehicles: { OTHERV1N000000001: '0000001-combustion-even-hours.json' } });
    expect(() => loadSimulatedFleet(outside, paths.scenarios, ['HAWKV1N'])).toThrow(/simulated-fleet\.json: OTHERV1N000000001 does not start with one of the adapter's vinPrefixes \(HAWKV1N\)/);
    rmSync(outside, { recursive: true, force: true });
    const missing = adapterDir({ vehicles: { HAWKV1N0000000001: 'no-such-scenario.json' } });
    expect(() => loadSimulatedFleet(missing, paths.scenarios, ['HAWKV1N'])).toThrow(/no-such-scenario\.json/);
  });
});
