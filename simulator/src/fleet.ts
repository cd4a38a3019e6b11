import { noise, seedOf } from './noise.ts';
import { buildVehicle, type Vehicle } from './vehicle.ts';

/** Fleet VINs: V1RTUALV1N + "F" + six digits (valid VIN characters, never one of the thirteen). */
export const fleetVin = (index: number): string => `V1RTUALV1NF${String(index).padStart(6, '0')}`;
export const isFleetVin = (vin: string): boolean => /^V1RTUALV1NF\d{6}$/.test(vin);

/**
 * `size` generated vehicles for load tests. Vehicle i behaves like template i mod n (the
 * scenario vehicles) and shares its day profile, so ten thousand of them cost little memory;
 * its VIN, place on the route and odometer are its own, derived from the index.
 */
export function buildFleet(templates: readonly Vehicle[], size: number): Vehicle[] {
  if (size === 0) return [];
  if (templates.length === 0) throw new Error('the fleet needs at least one scenario to copy');
  if (size > 1_000_000) throw new Error('the fleet holds at most 1,000,000 vehicles');
  const taken = new Set(templates.map((t) => t.vin));
  const out: Vehicle[] = [];
  for (let i = 0; i < size; i++) {
    const vin = fleetVin(i);
    if (taken.has(vin)) throw new Error(`fleet VIN ${vin} is already a scenario's VIN`);
    const template = templates[i % templates.length]!;
    const seed = seedOf(vin);
    out.push(
      buildVehicle(
        template.scenario,
        { profile: template.profile, events: template.events },
        {
          vin,
          routeOffsetKm: noise(seed, 0, 51) * 2 * template.route.lengthKm,
          odometerStartKm: Math.round(5000 + noise(seed, 0, 52) * 150000),
        },
      ),
    );
  }
  return out;
}
