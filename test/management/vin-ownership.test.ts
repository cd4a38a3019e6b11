import { afterEach, describe, expect, it } from 'vitest';
import { fleetVin } from '../../simulator/src/fleet.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

describe('which VINs the virtual manufacturer has', () => {
  let t: TestServices | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  async function ownership(fleetSize: number) {
    t = await createTestServices({ env: { SIM_FLEET_SIZE: String(fleetSize) } });
    return t.services.ownsVin;
  }

  it('has the thirteen scenario vehicles and no other VIN under its prefix', async () => {
    const has = await ownership(0);
    expect(has('virtual', 'V1RTUALV1N0000001')).toBe(true);
    expect(has('virtual', 'V1RTUALV1N0000S13')).toBe(true);
    expect(has('virtual', 'V1RTUALV1N0000999')).toBe(false);
    expect(has('virtual', fleetVin(0))).toBe(false);
  });

  it('has the generated fleet vehicles exactly when the fleet is configured (SIM_FLEET_SIZE)', async () => {
    const has = await ownership(10_000);
    expect(has('virtual', fleetVin(0))).toBe(true);
    expect(has('virtual', fleetVin(9_999))).toBe(true);
    expect(has('virtual', fleetVin(10_000))).toBe(false);
  });

  it('leaves other auto-confirming manufacturers to their prefixes', async () => {
    expect((await ownership(0))('acme', 'ACM00000000000001')).toBe(true);
  });
});
