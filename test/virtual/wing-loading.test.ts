import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loadWing, vehicleOwnership } from '../../src/main/wing.ts';
import { defaultPaths } from '../../src/paths.ts';
import { keyFamilies } from '../../src/queues/keys.ts';

const paths = defaultPaths();
const load = (env: Record<string, string>) => loadWing(loadConfig(env), { env, paths });

/*
 * The composition root loads the virtual wing only with SIMULATOR=on, and the wing says what it
 * adds through the registration interface (src/http/wing-contract.ts), reading its own SIM_*
 * settings from the environment it is given (docs/architecture.md).
 */
describe('loading the virtual wing', () => {
  it('with SIMULATOR=off: nothing is loaded, none of its settings is read, and every VIN its prefixes claim is the manufacturer\'s', async () => {
    // A bad setting of the wing does not matter where the wing is not loaded.
    expect(await load({ SIMULATOR: 'off', SIM_CLOCK: 'not-a-clock' })).toBeNull();
    expect(keyFamilies().map((f) => f.name)).not.toContain('virtual.oem-code');
    const own = vehicleOwnership(null);
    expect(own.ownsVin('virtual', 'V1RTUALV1NX999999')).toBe(true);
    expect(own.vehicleItems('virtual', 'V1RTUALV1N0000001')).toBeNull();
  });

  it('with SIMULATOR=on: its manufacturer (vehicles from its own SIM_FLEET_SIZE), its key families, its routes and the simulator role', async () => {
    const wing = (await load({ SIMULATOR: 'on', SIM_FLEET_SIZE: '3' }))!;
    expect(wing.manufacturers.map((m) => m.id)).toEqual(['virtual']);
    expect(wing.routes).toHaveLength(1);
    expect(typeof wing.simulatorRole).toBe('function');
    expect(keyFamilies().map((f) => f.name)).toEqual(expect.arrayContaining(['virtual.oem-code', 'virtual.oem-fault', 'virtual.api-request-log']));

    const own = vehicleOwnership(wing);
    expect(own.ownsVin('virtual', 'V1RTUALV1N0000001')).toBe(true);
    expect(own.ownsVin('virtual', 'V1RTUALV1NF000002')).toBe(true);
    expect(own.ownsVin('virtual', 'V1RTUALV1NF000003')).toBe(false);
    expect(own.vehicleItems('virtual', 'V1RTUALV1N0000001')?.has('fuellevel')).toBe(true);
    // Another manufacturer: the wing says nothing about it.
    expect(own.ownsVin('borealis', 'V1RTUALV1NF000003')).toBe(true);
    expect(wing.manufacturers[0]!.vins()).toContain('V1RTUALV1N0000001');
    // Loaded again (a second app in one process): the same families, registered once.
    await load({ SIMULATOR: 'on' });
    const names = keyFamilies().map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('with SIMULATOR=on and a bad SIM_* setting: stops with a ConfigError naming it', async () => {
    const failed = await load({ SIMULATOR: 'on', SIM_POLL_ERROR_RATE: '2' }).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(ConfigError);
    expect((failed as ConfigError).variable).toBe('SIM_POLL_ERROR_RATE');
  });
});
