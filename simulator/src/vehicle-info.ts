import type { Powertrain, VehicleInfo } from './raw-format.ts';
import type { ScenarioFile } from './scenario-types.ts';

/*
 * Basic vehicle data (the raw `vehicleInfo` group, catalog basicvehicledata): what the
 * scenario's `vehicle` block says, the drive type's defaults for the rest. Fixed per vehicle,
 * computed once when the vehicle is built.
 */

const DEFAULTS: Record<Powertrain, VehicleInfo> = {
  COMBUSTION: {
    brand: 'Virtual Motors',
    model: 'V3 Touring',
    bodyType: 'Sedan',
    colour: 'Silver Metallic',
    colourCode: 'VM01',
    seats: 5,
    produced: '2024-03-11',
    firstRegistered: '2024-04-02',
    country: 'DE',
    software: 'VOS 24.3.1',
    equipment: ['AC2', 'NAV1', 'PDC'],
  },
  DIESEL: {
    brand: 'Virtual Motors',
    model: 'V5 Cargo',
    bodyType: 'Van',
    colour: 'Alpine White',
    colourCode: 'VM02',
    seats: 3,
    produced: '2022-09-05',
    firstRegistered: '2022-10-14',
    country: 'DE',
    software: 'VOS 22.9.4',
    equipment: ['AC1', 'TOW', 'SCR'],
  },
  ELECTRIC: {
    brand: 'Virtual Motors',
    model: 'Ve City',
    bodyType: 'Hatchback',
    colour: 'Ocean Blue',
    colourCode: 'VM07',
    seats: 5,
    produced: '2025-02-17',
    firstRegistered: '2025-03-20',
    country: 'DE',
    software: 'VOS 25.1.0',
    equipment: ['AC2', 'NAV1', 'HP1', 'DC150'],
  },
};

export function vehicleInfo(s: ScenarioFile): VehicleInfo {
  return { ...DEFAULTS[s.powertrain], ...s.vehicle };
}
