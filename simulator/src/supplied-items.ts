import type { OptionalGroup } from './scenario-types.ts';
import type { Vehicle } from './vehicle.ts';

/*
 * The catalog items a virtual vehicle supplies, from its raw groups and its events: what
 * mappings/virtual/*.jsonata make of what sample() and the events send. The README's table
 * and the start-in-state test read it; test/simulator/supplied-items.test.ts checks it against
 * the mapping's real output over a day.
 */

const ALWAYS = ['vehiclespeed', 'vehicleheading', 'acceleration', 'geolocation', 'mileage', 'enginestatus', 'coolanttemperature', 'ignitionstatus'];
const PER_POSITION = ['frontleft', 'frontright', 'rearleft', 'rearright'].flatMap((p) => [`${p}doorstatus`, `${p}doorlockstatus`, `${p}windowstatus`]);

const BY_GROUP: Record<OptionalGroup, string[]> = {
  fuel: ['fuellevel', 'fuelremaining', 'fueldoorlockstatus'],
  diesel: ['dieselexhaustfluidlevel', 'dieselexhaustfluidlevelrangeremaining', 'dieselexhaustfilterstatus', 'dieseloffboardregenerationstatus', 'dieseloverboostcoderegulatorstatus'],
  traction: [
    'sochighlevel', 'batterymanagementstatus', 'energyconsumptionauxiliary', 'chargingstatus', 'chargingmethod',
    'chargingplugstatus', 'chargingwindow', 'chargingpotential', 'chargingpower', 'charginghistory',
  ],
  lowVoltage: ['batteryvoltage', 'accessorybatteryvoltage', 'backupbatteryvoltage', 'soclowlevel', 'deepsleepstatus'],
  brakes: ['brakesliferemaining', 'brakefluidliferemaining', 'brakesservicedistance'],
  serviceMessages: ['conditionbasedservices', 'conditionbasedservicesnumber', 'nextservicedistance'],
  checkControl: ['checkcontrolmessages'],
  trips: ['averagedistance', 'averagedistanceperiod'],
  roof: ['convertibletopposition', 'convertibletopstatus'],
  environment: ['environmentaltemperature'],
  body: ['vehiclelockstatus', 'trunkstatus', 'hoodstatus', 'hoodlockstatus', ...PER_POSITION],
  diagnostics: ['dtc', 'dtcconfirmed'],
  vehicleInfo: ['basicvehicledata'],
};

const CRASH = ['accidentautomatic', 'crashseverity', ...['frontleft', 'frontright', 'rearleft', 'rearright', 'sideleft', 'sideright', 'rollover', 'pedestrianprotection'].map((z) => `crashlocation${z}`)];

/**
 * The event items every virtual vehicle can raise, whatever its scenario schedules: it has the
 * emergency and teleservice call hardware, and the sandbox (POST /sandbox/v1/vehicles/{vin}/events)
 * raises any of them on demand.
 */
export const EVENT_ITEMS: readonly string[] = [...CRASH, 'accidentcallmanual', 'automaticteleservicecall'].sort();

/**
 * What the virtual manufacturer says a vehicle supplies (its capabilities, as a consumer asks
 * for them): the items of its raw groups, and every event item. A combustion car never sends
 * `sochighlevel`, so a consumer asking for it gets CAR.VE.910 rather than "not yet".
 */
export function capableItems(v: Vehicle): string[] {
  return [...new Set([...suppliedItems(v), ...EVENT_ITEMS])].sort();
}

export function suppliedItems(v: Vehicle): string[] {
  const items = new Set(ALWAYS);
  for (const g of v.groups) for (const i of BY_GROUP[g]) items.add(i);
  // The fuel flap is part of the body group, and only vehicles with a tank have one.
  if (!v.groups.has('body')) items.delete('fueldoorlockstatus');
  for (const e of v.events) {
    if (e.entry.type === 'CRASH') CRASH.forEach((i) => items.add(i));
    if (e.entry.type === 'MANUAL_EMERGENCY_CALL') items.add('accidentcallmanual');
    if (e.entry.type === 'TELESERVICE_CALL') items.add('automaticteleservicecall');
  }
  return [...items].sort();
}
