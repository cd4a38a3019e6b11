import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { defaultPaths } from '../../src/paths.ts';

/**
 * Payloads the live service really answered, copied from the recordings its public clients
 * kept (the evidence table in catalog/README.md). A client written against the live service
 * must get exactly these shapes from us, so the catalog has to accept them, and where our
 * earlier guess differed from the recording, the guess is now rejected.
 */
let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadCatalog(defaultPaths().catalog);
});

const at2023 = '2023-04-21T16:31:53.049Z';
/** The 2020 recordings carry nanosecond fractions. */
const at2020 = '2020-05-08T08:04:37.867824411Z';

const recorded: [string, unknown][] = [
  ['trunkstatus', { value: 'CLOSED', timestamp: at2023 }],
  ['enginestatus', { value: 'OFF', timestamp: at2023 }],
  ['mileage', { value: 117943, unit: 'km', timestamp: at2023 }],
  ['averagedistance', { value: 2880.105771945855, unit: 'km', timestamp: at2023 }],
  ['batteryvoltage', { value: 11.843020756889707, unit: 'V', timestamp: at2023 }],
  ['coolanttemperature', { value: 88.50326719480134, unit: 'C', timestamp: at2023 }],
  ['geolocation', { geoSystem: 'WGS84', latitude: 49.26246, longitude: 8.60664, timestamp: at2023 }],
  ['vehicleheading', { timestamp: at2023, unit: 'DEGREES', value: 357.8774873175614 }],
  ['checkcontrolmessages', { value: [{ status: 'CRITICAL', message: 'Brake Pad Alert', value: 200 }], timestamp: at2020 }],
  ['checkcontrolmessages', { value: [{ status: 'UNKNOWN', message: 'Drive Battery Alert', value: 400 }], timestamp: at2020 }],
  [
    'basicvehicledata',
    {
      value: {
        vehicleSoftware: 'VOS Rev1#c6c2',
        vehicleConfiguration: ['EC1', 'DC21', 'OE51'],
        seatingCapacity: 5,
        registrationFirstDate: '2020-02-17',
        registrationCountry: 'DE',
        productionDate: '2020-01-21',
        modelName: 'B01',
        colorText: 'Silver Metallic',
        colorCode: 'XX01',
        brandName: 'VirualOEM',
        bodyType: 'Sedan',
      },
      timestamp: at2020,
    },
  ],
  // The fields HMC reads of `dataPoint.value[0].dtcs[]`, with values of their kind.
  ['dtc', { value: [{ dtcs: [{ dtcId: 'P0420', ecuId: 'DME', occurrences: 3, timestamp: at2020 }] }], timestamp: at2020 }],
];

describe('payloads recorded from the live service', () => {
  it.each(recorded.map(([item, payload], i) => [`${item} #${i}`, item, payload] as const))('accepts %s as recorded', (_title, item, payload) => {
    expect(catalog.validate(item, payload)).toEqual({ valid: true });
  });
});

describe('our earlier guesses that the recordings overrule (catalog version 4)', () => {
  it('rejects a heading in DEGREE: the live service said DEGREES', () => {
    expect(catalog.validate('vehicleheading', { value: 357.9, unit: 'DEGREE', timestamp: at2023 })).toEqual({
      valid: false,
      errors: ['/unit must be equal to one of the allowed values: DEGREES'],
    });
  });

  it('rejects a mileage with a fraction: all 1,043 recorded points were whole kilometres', () => {
    expect(catalog.validate('mileage', { value: 117943.4, unit: 'km', timestamp: at2023 })).toEqual({
      valid: false,
      errors: ['/value must be multiple of 1'],
    });
  });

  it('rejects a check-control message code with a fraction: codes are whole numbers such as 200', () => {
    expect(catalog.validate('checkcontrolmessages', { value: [{ status: 'CRITICAL', message: 'Brake Pad Alert', value: 200.5 }], timestamp: at2023 })).toEqual({
      valid: false,
      errors: ['/value/0/value must be multiple of 1'],
    });
  });
});

describe('the items the live service\'s clients request', () => {
  // DAPP's pull list and ticker and HMC's requests name these; a request for one unknown item
  // fails DAPP's whole pull, so every one must be in the catalog as a pull item.
  const requested = [
    'trunkstatus', 'dtcconfirmed', 'dtc', 'basicvehicledata', 'environmentaltemperature', 'fuelremaining',
    'nextservicedistance', 'vehiclelockstatus', 'ignitionstatus', 'hoodstatus', 'hoodlockstatus',
    'fueldoorlockstatus', 'frontleftdoorstatus', 'rearrightdoorlockstatus', 'rearleftwindowstatus',
    'dieseloverboostcoderegulatorstatus',
  ];

  it.each(requested)('serves %s as a pull item', (item) => {
    expect(catalog.get(item)).toMatchObject({ technicalName: item, deliveryMethod: 'pull', lifecycleStatus: 'PUBLISHED' });
    expect(catalog.get(item)!.event).toBeUndefined();
  });

  it('has door, door lock and window status for each of the four positions', () => {
    for (const position of ['frontleft', 'frontright', 'rearleft', 'rearright']) {
      for (const part of ['door', 'doorlock', 'window']) expect(catalog.get(`${position}${part}status`), `${position}${part}status`).toBeDefined();
    }
  });
});
