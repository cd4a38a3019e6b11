import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { defaultPaths } from '../../src/services.ts';
import { casesFor, type RuleKind } from './payload-cases.ts';
import type { Field, Fields } from './spec-fields.ts';
import { SPEC_22_ITEMS, VERSION_2_ITEMS } from './spec-items.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadCatalog(defaultPaths().catalog);
});

const ALL_ITEMS = [...SPEC_22_ITEMS, ...VERSION_2_ITEMS];
const UNIT_ITEMS = 23;

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
    // 10 enumerations in 2.2 (period, 9 status values) + geoSystem and enginestatus.
    expect(count('enumeration')).toBe(12);
    // The 17 value+unit rows of 2.2, acceleration's optional unit, charginghistory's session
    // objects, and the 4 version-2 items with a unit (geolocation has none).
    expect(count('unit enumeration')).toBe(UNIT_ITEMS);
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
  const expectedType = { number: 'number', string: 'string', boolean: 'boolean', 'date-time': 'string', enum: 'string', object: 'object', array: 'array' }[field.kind];
  expect(s.type, `${at} type`).toBe(expectedType);
  if (field.kind === 'enum') expect(s.enum, `${at} enum`).toEqual(field.values);
  if (field.kind === 'date-time') expect(s.format, `${at} format`).toBe('date-time');
  if (field.kind === 'array') expectSameShape(s.items ?? {}, field.items, `${at}[]`);
  if (field.kind === 'object') {
    const fields: Fields = field.fields;
    expect(Object.keys(s.properties ?? {}).sort(), `${at} properties`).toEqual(Object.keys(fields).sort());
    const required = Object.entries(fields).filter(([, f]) => f.required).map(([k]) => k).sort();
    expect([...(s.required ?? [])].sort(), `${at} required`).toEqual(required);
    for (const [key, sub] of Object.entries(fields)) expectSameShape(s.properties![key]!, sub, `${at}.${key}`);
  }
}
