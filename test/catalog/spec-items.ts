import { arr, count, E, e, event, f, obj, positive, range, TS, valueBool, valueEnum, valueUnit, valueUnitIn, whole, type Fields } from './spec-fields.ts';

/** One catalog item as the spec (2.2, 2.3, section 6) or the catalog's versions 2 to 4 define it. */
export interface SpecItem {
  technicalName: string;
  deliveryMethod: 'pull' | 'push';
  event: boolean;
  /** The spec's own description text, where the table gives one. */
  description?: string;
  fields: Fields;
}

const pull = (technicalName: string, fields: Fields, description?: string): SpecItem => ({
  technicalName,
  deliveryMethod: 'pull',
  event: false,
  fields,
  ...(description ? { description } : {}),
});
const pushEvent = (technicalName: string, description: string): SpecItem => ({
  technicalName,
  deliveryMethod: 'push',
  event: true,
  fields: event(),
  description,
});

const dieselStatus = ['UNKNOWN', 'NORMAL_OPERATION', 'OVERLOADED', 'AT_LIMIT', 'OVER_LIMIT'];
const percentObj = obj({ value: range(0, 100, false), unit: e('PERCENTAGE') });
/** Absolute zero in °C, the first unit of coolanttemperature (the schema allows -459.67 in °F). */
const ABSOLUTE_ZERO_C = -273.15;

/** Spec 2.3: the element of charginghistory `value.chargingsession`. */
const chargingSession = obj({
  startTime: f('date-time*'),
  endTime: f('date-time*'),
  displayedSoc: percentObj,
  displayedStartSoc: percentObj,
  energyCharged: obj({ value: f('number'), unit: e('kWh') }),
  mileage: obj({ value: f('string'), unit: e('km', 'mi') }),
  chargingCostInformation: obj({ currency: f('string'), calculatedChargingCost: f('number') }),
  chargingLocation: obj({ municipality: f('string'), address: f('string'), formattedAddress: f('string') }),
});

/**
 * Spec section 2.2, row by row (43 items). Bounds (catalog version 3) only where a value outside
 * is impossible: a percentage outside 0..100, a negative count, distance or crash severity, a
 * temperature below absolute zero.
 */
export const SPEC_22_ITEMS: SpecItem[] = [
  // y is a number: "the schema is authoritative".
  pull('acceleration', { x: f('number*'), y: f('number*'), z: f('number'), unit: e('m/s/s'), timestamp: TS }),
  pushEvent('accidentautomatic', 'Indicates that the automatic accident call was triggered.'),
  pushEvent('accidentcallmanual', 'Indicates that the manual accident call was triggered.'),
  pushEvent('automaticteleservicecall', 'Date when the vehicle triggered the automatic teleservice call.'),
  pull('energyconsumptionauxiliary', valueUnit('kWh'), 'Consumption of electrical components.'),
  pull('averagedistance', valueUnitIn(0, undefined, 'km', 'mi'), 'Average distance per week.'),
  pull('averagedistanceperiod', { value: range(0), unit: E('km', 'mi'), periodValue: positive(), period: E('DAY', 'WEEK', 'MONTH', 'YEAR'), timestamp: TS }),
  pull('soclowlevel', valueUnitIn(0, 100, 'PERCENTAGE'), 'Low-voltage battery charge.'),
  pull('batterymanagementstatus', valueEnum('OK', 'HIGH_VOLTAGE_USER_CUT_OFF', 'INFOTAINMENT_CUT_OFF', 'VEHICLE_WAKE_UP_BLOCKED')),
  pull('batteryvoltage', valueUnit('V')),
  pull('accessorybatteryvoltage', valueUnit('V')),
  pull('backupbatteryvoltage', valueUnit('V')),
  pull('sochighlevel', valueUnitIn(0, 100, 'PERCENTAGE'), 'High-voltage battery charge.'),
  pull('brakefluidliferemaining', valueUnitIn(0, 100, 'PERCENTAGE')),
  pull('brakesliferemaining', valueUnitIn(0, 100, 'PERCENTAGE')),
  // No minimum: an overdue service is reported as a negative distance remaining.
  pull('brakesservicedistance', valueUnit('km'), 'Distance remaining before the next brake service.'),
  pull('charginghistory', { value: obj({ chargingsession: arr(chargingSession, true) }, true), timestamp: f('date-time') }),
  pull('chargingmethod', valueEnum('ALTERNATING', 'DIRECT', 'NOTCHARGING')),
  pull('chargingplugstatus', valueEnum('CONNECTED', 'DISCONNECTED', 'UNKNOWN')),
  pull('chargingpotential', valueUnit('V'), 'Voltage of the most recent charging process.'),
  pull('chargingpower', valueUnit('A'), 'Maximum charge of the most recent charging process, in ampere.'),
  pull('chargingstatus', valueEnum('FINISHED', 'ACTIVE', 'NOTCHARGING')),
  pull('chargingwindow', valueEnum('SELECTED', 'NOTSELECTED', 'UNKNOWN')),
  // Catalog version 4: `value` is a numeric message code (recorded: 200 for "Brake Pad Alert"), so whole.
  pull('checkcontrolmessages', {
    value: arr(obj({ id: f('number'), message: f('string*'), status: f('string'), value: whole() }), true),
    timestamp: TS,
  }),
  pull('conditionbasedservices', {
    value: arr(obj({ date: f('date-time'), id: f('number'), description: f('string'), status: f('string'), name: f('string*'), value: f('number') }), true),
    timestamp: TS,
  }),
  pull('conditionbasedservicesnumber', { value: count(), timestamp: TS }),
  pull('convertibletopposition', valueUnitIn(0, 100, 'PERCENTAGE')),
  pull('convertibletopstatus', valueEnum('OPENED', 'CLOSED', 'LOCKED', 'UNLOCKED', 'SAFE', 'SECURED', 'INTERMEDIATE', 'UNKNOWN')),
  pull('coolanttemperature', valueUnitIn(ABSOLUTE_ZERO_C, undefined, 'C', 'F')),
  pull('crashlocationfrontleft', valueBool()),
  pull('crashlocationfrontright', valueBool()),
  pull('crashlocationpedestrianprotection', valueBool()),
  pull('crashlocationrearleft', valueBool()),
  pull('crashlocationrearright', valueBool()),
  pull('crashlocationrollover', valueBool()),
  pull('crashlocationsideleft', valueBool()),
  pull('crashlocationsideright', valueBool()),
  // The spec gives no scale, so no maximum.
  pull('crashseverity', { value: range(0), timestamp: TS }, 'Severity of the last crash.'),
  pull('deepsleepstatus', valueEnum('ON', 'OFF', 'UNKNOWN')),
  pull('dieselexhaustfilterstatus', valueEnum(...dieselStatus)),
  pull('dieselexhaustfluidlevel', valueUnitIn(0, 100, 'PERCENTAGE')),
  pull('dieselexhaustfluidlevelrangeremaining', valueUnitIn(0, undefined, 'km')),
  pull('dieseloffboardregenerationstatus', valueEnum(...dieselStatus)),
];

/**
 * Catalog version 2: what the virtual vehicles need beyond 2.2. As of catalog version 4, with the
 * recorded formats of the live service: mileage in whole units, vehicleheading in DEGREES.
 */
export const VERSION_2_ITEMS: SpecItem[] = [
  pull('mileage', { value: count(), unit: E('km', 'mi'), timestamp: TS }),
  pull('geolocation', { geoSystem: E('WGS84'), latitude: range(-90, 90), longitude: range(-180, 180), timestamp: TS }),
  pull('fuellevel', { value: range(0, 100), unit: E('PERCENTAGE'), timestamp: TS }),
  pull('enginestatus', valueEnum('ON', 'OFF')),
  pull('vehicleheading', { value: range(0, 360), unit: E('DEGREES'), timestamp: TS }),
  pull('vehiclespeed', { value: range(0), unit: E('km/h', 'mph'), timestamp: TS }),
];

/** The one 2.2 entry whose description changed in catalog version 2. */
export const CHANGED_IN_VERSION_2 = 'averagedistance';

/** Catalog version 3: the 2.2 entries that gained bounds (each raised by one version). */
export const CHANGED_IN_VERSION_3 = [
  'averagedistance',
  'averagedistanceperiod',
  'brakefluidliferemaining',
  'brakesliferemaining',
  'charginghistory',
  'conditionbasedservicesnumber',
  'convertibletopposition',
  'coolanttemperature',
  'crashseverity',
  'dieselexhaustfluidlevel',
  'dieselexhaustfluidlevelrangeremaining',
  'sochighlevel',
  'soclowlevel',
];

const doorStatus = ['OPENED', 'CLOSED', 'UNKNOWN'];
const lockStatus = ['LOCKED', 'UNLOCKED', 'UNKNOWN'];
/** Recorded by HMC: `dataPoint.value[0].dtcs[]` of `{dtcId, ecuId, occurrences, timestamp}`. */
const dtcList = { value: arr(obj({ dtcs: arr(obj({ dtcId: f('string*'), ecuId: f('string'), occurrences: count(false), timestamp: f('date-time') }), true) }), true), timestamp: TS };
const positions = ['frontleft', 'frontright', 'rearleft', 'rearright'];

/**
 * Catalog version 4: the items after `dieseloffboardregenerationstatus` as the live service had
 * them, from its clients' recordings; where those are silent, as catalog/README.md decides.
 */
export const VERSION_4_ITEMS: SpecItem[] = [
  pull('dieseloverboostcoderegulatorstatus', valueEnum(...dieselStatus)),
  pull('dtc', dtcList),
  pull('dtcconfirmed', dtcList),
  pull('basicvehicledata', {
    value: obj(
      {
        vehicleSoftware: f('string'),
        vehicleConfiguration: arr(f('string')),
        seatingCapacity: count(false),
        registrationFirstDate: f('date'),
        registrationCountry: f('string'),
        productionDate: f('date'),
        modelName: f('string'),
        colorText: f('string'),
        colorCode: f('string'),
        brandName: f('string'),
        bodyType: f('string'),
      },
      true,
    ),
    timestamp: TS,
  }),
  pull('environmentaltemperature', valueUnitIn(ABSOLUTE_ZERO_C, undefined, 'C', 'F')),
  pull('fuelremaining', valueUnitIn(0, undefined, 'km')),
  // No minimum, as brakesservicedistance: an overdue service is a negative distance remaining.
  pull('nextservicedistance', valueUnit('km')),
  pull('ignitionstatus', valueEnum('ON', 'OFF', 'UNKNOWN')),
  pull('vehiclelockstatus', valueEnum('LOCKED', 'UNLOCKED', 'SECURED', 'UNKNOWN')),
  pull('hoodstatus', valueEnum(...doorStatus)),
  pull('hoodlockstatus', valueEnum(...lockStatus)),
  pull('trunkstatus', valueEnum(...doorStatus)),
  pull('fueldoorlockstatus', valueEnum(...lockStatus)),
  ...positions.flatMap((p) => [
    pull(`${p}doorstatus`, valueEnum(...doorStatus)),
    pull(`${p}doorlockstatus`, valueEnum(...lockStatus)),
    pull(`${p}windowstatus`, valueEnum('OPENED', 'CLOSED', 'INTERMEDIATE', 'UNKNOWN')),
  ]),
];

/** Catalog version 4: entries whose recorded format replaced our guess (each raised by one version). */
export const CHANGED_IN_VERSION_4 = ['checkcontrolmessages', 'mileage', 'vehicleheading'];

/** Every item of the catalog, in the order of the versions that added them. */
export const ALL_ITEMS: SpecItem[] = [...SPEC_22_ITEMS, ...VERSION_2_ITEMS, ...VERSION_4_ITEMS];
