import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { createAjv } from '../../src/catalog/ajv.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { defaultPaths } from '../../src/paths.ts';
import { casesFor, type RuleKind } from './payload-cases.ts';
import type { Field, Fields } from './spec-fields.ts';
import { ALL_ITEMS } from './spec-items.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadCatalog(defaultPaths().catalog);
});


describe.each(ALL_ITEMS.map((i) => [i.technicalName, i] as const))('payload schema of %s', (name, item) => {
  it('is a draft-04 object schema with exactly the fields of the spec', () => {
    const schema = catalog.get(name)!.schema;
    expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
    expectSameShape(schema, { kind: 'object', required: true, fields: item.fields }, name);
  });

  it.each(casesFor(item.fields).map((c) => [`${c.valid ? 'accepts' : 'rejects'} ${c.name} [${c.rule}]`, c] as const))('%s', (_title, c) => {
    const result = catalog.validate(name, c.payload);
    if (c.valid) {
      expect(result).toEqual({ valid: true });
    } else {
      expect(result.valid).toBe(false);
      if (!result.valid && c.error) expect(result.errors.join('\n')).toContain(c.error);
    }
  });
});

describe('rule coverage', () => {
  it('rejects each rule kind the spec states across many items', () => {
    const itemsPerRule = new Map<RuleKind, Set<string>>();
    for (const item of ALL_ITEMS) {
      for (const c of casesFor(item.fields)) {
        if (c.valid) continue;
        const set = itemsPerRule.get(c.rule) ?? new Set<string>();
        set.add(item.technicalName);
        itemsPerRule.set(c.rule, set);
      }
    }
    const count = (rule: RuleKind) => itemsPerRule.get(rule)?.size ?? 0;
    expect(count('required field')).toBe(ALL_ITEMS.length);
    expect(count('type')).toBe(ALL_ITEMS.length);
    expect(count('date-time')).toBe(ALL_ITEMS.length);
    expect(count('additional property')).toBe(ALL_ITEMS.length);
    // 10 enumerations in 2.2 (period, 9 status values) + geoSystem and enginestatus, and the 19
    // status items of version 4 (7 named, 12 per door or window position).
    expect(count('enumeration')).toBe(31);
    // The 17 value+unit rows of 2.2, acceleration's optional unit, charginghistory's session
    // objects, the 4 version-2 items with a unit (geolocation has none), and the 3 of version 4
    // (environmentaltemperature, fuelremaining, nextservicedistance).
    expect(count('unit enumeration')).toBe(26);
    // The 5 bounded version-2 items, the 13 items bounded in catalog version 3, and in version 4
    // the whole check-control codes and 5 new items (both dtc lists' occurrences, the seating
    // capacity, environmentaltemperature, fuelremaining).
    expect(count('range')).toBe(24);
    // basicvehicledata's production and first registration dates.
    expect(count('date')).toBe(1);
  });
});

describe('impossible readings', () => {
  const at = '2024-05-01T10:00:00Z';

  it('rejects a state of charge of 250 % or -3 % and accepts 0 % and 100 %', () => {
    for (const item of ['sochighlevel', 'soclowlevel']) {
      for (const value of [0, 47.5, 100]) expect(catalog.validate(item, { value, unit: 'PERCENTAGE', timestamp: at }), `${item} ${value}`).toEqual({ valid: true });
    }
    expect(catalog.validate('sochighlevel', { value: 250, unit: 'PERCENTAGE', timestamp: at })).toEqual({ valid: false, errors: ['/value must be <= 100'] });
    expect(catalog.validate('soclowlevel', { value: -3, unit: 'PERCENTAGE', timestamp: at })).toEqual({ valid: false, errors: ['/value must be >= 0'] });
  });

  it('bounds every percentage of the catalog, however deep, to 0..100', () => {
    const found: string[] = [];
    const walk = (schema: unknown, at: string): void => {
      if (schema === null || typeof schema !== 'object') return;
      const s = schema as { properties?: Record<string, { enum?: string[]; minimum?: number; maximum?: number }>; items?: unknown };
      if (s.properties?.unit?.enum?.includes('PERCENTAGE')) {
        found.push(at);
        expect([s.properties.value?.minimum, s.properties.value?.maximum], at).toEqual([0, 100]);
      }
      for (const [k, sub] of Object.entries(s.properties ?? {})) walk(sub, `${at}.${k}`);
      walk(s.items, `${at}[]`);
    };
    for (const entry of catalog.list()) walk(entry.schema, entry.technicalName);
    // 6 items of 2.2, fuellevel, and the two charging session levels.
    expect(found).toHaveLength(9);
  });

  it('counts in whole numbers: a condition based services number of 2.5 or -1 is rejected', () => {
    expect(catalog.validate('conditionbasedservicesnumber', { value: 0, timestamp: at })).toEqual({ valid: true });
    expect(catalog.validate('conditionbasedservicesnumber', { value: 3, timestamp: at })).toEqual({ valid: true });
    expect(catalog.validate('conditionbasedservicesnumber', { value: 2.5, timestamp: at })).toEqual({ valid: false, errors: ['/value must be multiple of 1'] });
    expect(catalog.validate('conditionbasedservicesnumber', { value: -1, timestamp: at })).toEqual({ valid: false, errors: ['/value must be >= 0'] });
  });

  it('keeps a coolant temperature above absolute zero in the unit it is given in', () => {
    const temp = (value: number, unit: string) => catalog.validate('coolanttemperature', { value, unit, timestamp: at });
    expect(temp(-273.15, 'C')).toEqual({ valid: true });
    expect(temp(-300, 'F')).toEqual({ valid: true });
    expect(temp(-459.67, 'F')).toEqual({ valid: true });
    const below = temp(-300, 'C');
    expect(below.valid).toBe(false);
    if (!below.valid) expect(below.errors).toContain('/value must be >= -273.15');
    expect(temp(-460, 'F')).toMatchObject({ valid: false, errors: expect.arrayContaining(['/value must be >= -459.67']) });
  });

  it('accepts any crash severity from 0 up, and no negative distance', () => {
    expect(catalog.validate('crashseverity', { value: 0, timestamp: at })).toEqual({ valid: true });
    expect(catalog.validate('crashseverity', { value: 1e6, timestamp: at })).toEqual({ valid: true });
    expect(catalog.validate('crashseverity', { value: -1, timestamp: at })).toEqual({ valid: false, errors: ['/value must be >= 0'] });
    expect(catalog.validate('averagedistance', { value: -0.1, unit: 'km', timestamp: at })).toEqual({ valid: false, errors: ['/value must be >= 0'] });
    expect(catalog.validate('averagedistanceperiod', { value: 45.7, unit: 'km', periodValue: 0, period: 'DAY', timestamp: at })).toEqual({ valid: false, errors: ['/periodValue must be > 0'] });
  });
});

describe('date-times (RFC 3339 section 5.6)', () => {
  it('accepts only upper-case T and Z or a ±hh:mm offset', () => {
    const ts = (timestamp: string) => catalog.validate('batteryvoltage', { value: 12.5, unit: 'V', timestamp });
    for (const ok of ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00.123Z', '2026-11-25T11:00:00+01:00', '2026-11-25T05:00:00-05:00', '2016-12-31T23:59:60Z']) {
      expect(ts(ok), ok).toEqual({ valid: true });
    }
    for (const bad of ['2026-11-25 10:00:00Z', '2026-11-25t10:00:00Z', '2026-11-25T10:00:00z', '2026-11-25T11:00:00+0100', '2026-11-25T11:00:00+01', '2026-11-25T10:00:00', '2026-02-30T10:00:00Z']) {
      expect(ts(bad), bad).toEqual({ valid: false, errors: ['/timestamp must match format "date-time"'] });
    }
  });

  it('judges each timestamp on its own, whatever was judged just before (the last valid one is remembered)', () => {
    const ts = (timestamp: string) => catalog.validate('batteryvoltage', { value: 12.5, unit: 'V', timestamp }).valid;
    const sequence: [string, boolean][] = [
      ['', false],
      ['2026-11-25T10:00:00Z', true],
      ['2026-11-25T10:00:00Z', true],
      ['2026-02-30T10:00:00Z', false],
      ['2026-11-25T10:00:00Z', true],
      ['2026-11-25T10:00:00z', false],
      ['2026-11-25T10:00:00z', false],
      ['2016-12-31T23:59:60Z', true],
      ['2026-11-25T24:00:00Z', false],
    ];
    for (const [timestamp, valid] of sequence) expect(ts(timestamp), timestamp).toBe(valid);
    // A fresh validator, before it has remembered anything, takes nothing for granted either.
    const fresh = createAjv().compile({ type: 'string', format: 'date-time' });
    for (const [timestamp, valid] of sequence) expect(fresh(timestamp), `fresh: ${timestamp}`).toBe(valid);
  });
});

describe('payloads written out as the spec describes them', () => {
  it('accepts a charging history with a full 2.3 session and rejects a session without endTime', () => {
    const session = {
      startTime: '2024-05-01T18:00:00Z',
      endTime: '2024-05-01T19:30:00Z',
      displayedSoc: { value: 80, unit: 'PERCENTAGE' },
      displayedStartSoc: { value: 20, unit: 'PERCENTAGE' },
      energyCharged: { value: 42.5, unit: 'kWh' },
      mileage: { value: '12345', unit: 'km' },
      chargingCostInformation: { currency: 'EUR', calculatedChargingCost: 17.9 },
      chargingLocation: { municipality: 'Munich', address: 'Main St 1', formattedAddress: 'Main St 1, 80331 Munich' },
    };
    expect(catalog.validate('charginghistory', { value: { chargingsession: [session] } })).toEqual({ valid: true });
    const { endTime: _dropped, ...open } = session;
    expect(catalog.validate('charginghistory', { value: { chargingsession: [open] } })).toEqual({
      valid: false,
      errors: ["/value/chargingsession/0 must have required property 'endTime'"],
    });
  });

  it('accepts acceleration with a numeric lateral y and rejects the field list\'s string y', () => {
    expect(catalog.validate('acceleration', { x: 0.4, y: -1.2, z: 9.81, unit: 'm/s/s', timestamp: '2024-05-01T10:00:00Z' })).toEqual({ valid: true });
    expect(catalog.validate('acceleration', { x: 0.4, y: '-1.2', timestamp: '2024-05-01T10:00:00Z' })).toEqual({ valid: false, errors: ['/y must be number'] });
  });

  it('accepts an accident event with only receivedAt and names every problem of a bad one', () => {
    expect(catalog.validate('accidentautomatic', { receivedAt: '2024-05-01T10:00:01Z' })).toEqual({ valid: true });
    expect(catalog.validate('accidentcallmanual', { timestamp: 'noon', severity: 5 })).toEqual({
      valid: false,
      errors: ["/ must have required property 'receivedAt'", '/ must NOT have additional properties: severity', '/timestamp must match format "date-time"'],
    });
  });

  it('answers an unknown item as invalid instead of throwing', () => {
    expect(catalog.validate('nosuchitem', {})).toEqual({ valid: false, errors: ['unknown data item nosuchitem'] });
    expect(catalog.validator('nosuchitem')).toBeUndefined();
    expect(catalog.validator('mileage')!({ value: 10, unit: 'mi', timestamp: '2024-05-01T10:00:00Z' })).toEqual({ valid: true });
  });
});

/** The schema declares exactly the spec's fields, types and required lists, at every depth. */
function expectSameShape(schema: Record<string, unknown>, field: Field, at: string): void {
  const s = schema as { type?: string; properties?: Record<string, Record<string, unknown>>; required?: string[]; items?: Record<string, unknown>; enum?: string[]; format?: string };
  const expectedType = { number: 'number', string: 'string', boolean: 'boolean', 'date-time': 'string', date: 'string', enum: 'string', object: 'object', array: 'array' }[field.kind];
  expect(s.type, `${at} type`).toBe(expectedType);
  if (field.kind === 'enum') expect(s.enum, `${at} enum`).toEqual(field.values);
  if (field.kind === 'date-time' || field.kind === 'date') expect(s.format, `${at} format`).toBe(field.kind);
  if (field.kind === 'array') expectSameShape(s.items ?? {}, field.items, `${at}[]`);
  if (field.kind === 'object') {
    const fields: Fields = field.fields;
    expect(Object.keys(s.properties ?? {}).sort(), `${at} properties`).toEqual(Object.keys(fields).sort());
    const required = Object.entries(fields).filter(([, f]) => f.required).map(([k]) => k).sort();
    expect([...(s.required ?? [])].sort(), `${at} required`).toEqual(required);
    for (const [key, sub] of Object.entries(fields)) expectSameShape(s.properties![key]!, sub, `${at}.${key}`);
  }
}
