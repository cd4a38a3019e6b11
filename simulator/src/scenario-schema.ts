import { CRASH_ZONES } from './raw-format.ts';
import { OPTIONAL_GROUPS, SIGNAL_PATHS } from './scenario-types.ts';

/*
 * JSON Schema (draft-07) of a scenario file. Structural checks only; scenario-check.ts adds
 * what a schema cannot say (overlapping windows, an energy level that leaves its bounds).
 */

const timeOfDay = { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$' };
const period = { type: 'string', pattern: '^[1-9][0-9]*[mh]$' };
const calendarDate = { type: 'string', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' };
const zone = { enum: [...CRASH_ZONES] };
const repeat = { every: period, until: timeOfDay };

const valueSpec = {
  $id: 'valueSpec',
  oneOf: [
    { type: 'object', required: ['constant'], additionalProperties: false, properties: { constant: { type: 'number' } } },
    {
      type: 'object',
      required: ['min', 'max'],
      additionalProperties: false,
      properties: {
        min: { type: 'number' },
        max: { type: 'number' },
        trend: { enum: ['rising', 'falling'] },
        periodHours: { type: 'number', exclusiveMinimum: 0 },
      },
    },
    {
      type: 'object',
      required: ['driving', 'parked'],
      additionalProperties: false,
      properties: { driving: { $ref: 'valueSpec' }, parked: { $ref: 'valueSpec' } },
    },
  ],
};

const scheduleEntry = {
  type: 'object',
  required: ['activity', 'from', 'to'],
  additionalProperties: false,
  properties: {
    activity: { enum: ['drive', 'refuel', 'charge'] },
    from: timeOfDay,
    to: timeOfDay,
    ...repeat,
    targetPct: { type: 'number', minimum: 0, maximum: 100 },
    method: { enum: ['ALTERNATING', 'DIRECT'] },
    voltageV: { type: 'number', exclusiveMinimum: 0 },
    maxCurrentA: { type: 'number', exclusiveMinimum: 0 },
    windowSelected: { type: 'boolean' },
    station: {
      type: 'object',
      required: ['city', 'street'],
      additionalProperties: false,
      properties: { city: { type: 'string', minLength: 1 }, street: { type: 'string', minLength: 1 } },
    },
    cruiseKmh: { type: 'number', exclusiveMinimum: 0, maximum: 250 },
  },
};

const eventEntry = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['CRASH', 'MANUAL_EMERGENCY_CALL', 'TELESERVICE_CALL'] } },
  // The discriminator makes Ajv check only the branch `type` names, so errors are about that branch.
  discriminator: { propertyName: 'type' },
  oneOf: [
    {
      required: ['at', 'severity'],
      additionalProperties: false,
      properties: {
        type: { const: 'CRASH' },
        at: timeOfDay,
        ...repeat,
        severity: { type: 'integer', minimum: 1, maximum: 5 },
        zones: { type: 'array', items: zone, uniqueItems: true },
        zonesCycle: { type: 'array', minItems: 1, items: { type: 'array', items: zone, uniqueItems: true } },
        rollover: { type: 'boolean' },
        pedestrianProtection: { type: 'boolean' },
      },
    },
    {
      required: ['at'],
      additionalProperties: false,
      properties: { type: { const: 'MANUAL_EMERGENCY_CALL' }, at: timeOfDay, ...repeat },
    },
    {
      required: ['at', 'reason'],
      additionalProperties: false,
      properties: { type: { const: 'TELESERVICE_CALL' }, at: timeOfDay, ...repeat, reason: { type: 'string', minLength: 1 } },
    },
  ],
};

export const scenarioSchema = {
  type: 'object',
  required: ['vin', 'name', 'powertrain', 'driving', 'schedule', 'energy'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    // `V1RTUALV1NF` + 6 digits is the generated load-test fleet's (fleet.ts, SIM_FLEET_SIZE): a
    // scenario there would collide with a fleet vehicle. That pattern stands alone, its group
    // named for the reason, because Ajv's message for a pattern is the pattern itself.
    vin: {
      type: 'string',
      allOf: [
        { pattern: '^V1RTUALV1N[A-HJ-NPR-Z0-9]{7}$' },
        { pattern: '^(?!(?<reserved_for_the_load_test_fleet>V1RTUALV1NF[0-9]{6})$)' },
      ],
    },
    name: { type: 'string', minLength: 1 },
    powertrain: { enum: ['COMBUSTION', 'DIESEL', 'ELECTRIC'] },
    route: { enum: ['karlsruhe-mannheim', 'karlsruhe-city', 'mannheim-heidelberg'] },
    routeOffsetKm: { type: 'number', minimum: 0 },
    odometer: {
      type: 'object',
      required: ['startKm'],
      additionalProperties: false,
      properties: { startKm: { type: 'number', minimum: 0 }, epoch: { type: 'string', format: 'date-time' } },
    },
    driving: {
      type: 'object',
      required: ['cruiseKmh'],
      additionalProperties: false,
      properties: {
        cruiseKmh: { type: 'number', exclusiveMinimum: 0, maximum: 250 },
        variationPct: { type: 'number', minimum: 0, maximum: 60 },
        maxKmh: { type: 'number', exclusiveMinimum: 0, maximum: 300 },
      },
    },
    schedule: { type: 'array', items: scheduleEntry },
    energy: {
      type: 'object',
      required: ['capacity', 'consumptionPer100Km'],
      additionalProperties: false,
      properties: {
        capacity: { type: 'number', exclusiveMinimum: 0 },
        consumptionPer100Km: { type: 'number', minimum: 0 },
        drainPctPerHour: { type: 'number', minimum: 0 },
        keepWithinPct: {
          type: 'array',
          minItems: 2,
          maxItems: 2,
          items: { type: 'number', minimum: 0, maximum: 100 },
        },
      },
    },
    events: { type: 'array', items: eventEntry },
    groups: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(OPTIONAL_GROUPS.map((g) => [g, { type: 'boolean' }])),
    },
    signals: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(SIGNAL_PATHS.map((p) => [p, { $ref: 'valueSpec' }])),
    },
    vehicle: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ...Object.fromEntries(['brand', 'model', 'bodyType', 'colour', 'colourCode', 'country', 'software'].map((k) => [k, { type: 'string', minLength: 1 }])),
        seats: { type: 'integer', minimum: 1, maximum: 9 },
        produced: calendarDate,
        firstRegistered: calendarDate,
        equipment: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
    },
    seed: { type: 'string', minLength: 1 },
  },
  definitions: { valueSpec },
};
