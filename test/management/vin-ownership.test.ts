import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createVinOwnership } from '../../src/management/manufacturer-policy.ts';
import { defaultPaths, type Services } from '../../src/services.ts';
import { fleetVin } from '../../simulator/src/fleet.ts';

function ownership(fleetSize: number) {
  const services = { config: loadConfig({ SIM_FLEET_SIZE: String(fleetSize) }), paths: defaultPaths() } as Services;
  return createVinOwnership(services);
}

describe('which VINs the virtual manufacturer has', () => {
  it('has the thirteen scenario vehicles and no other VIN under its prefix', () => {
    const has = ownership(0);
    expect(has('virtual', 'V1RTUALV1N0000001')).toBe(true);
    expect(has('virtual', 'V1RTUALV1N0000S13')).toBe(true);
    expect(has('virtual', 'V1RTUALV1N0000999')).toBe(false);
  });

  it('has the generated fleet vehicles exactly when the fleet is configured (SIM_FLEET_SIZE)', () => {
    expect(ownership(0)('virtual', fleetVin(0))).toBe(false);
    const has = ownership(10_000);
    expect(has('virtual', fleetVin(0))).toBe(true);
    expect(has('virtual', fleetVin(9_999))).toBe(true);
    expect(has('virtual', fleetVin(10_000))).toBe(false);
  });

  it('leaves other auto-confirming manufacturers to their prefixes', () => {
    expect(ownership(0)('acme', 'ACM00000000000001')).toBe(true);
  });
});
