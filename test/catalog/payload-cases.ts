import type { Field, Fields } from './spec-fields.ts';

export type RuleKind =
  | 'sample'
  | 'required field'
  | 'optional field'
  | 'enumeration'
  | 'unit enumeration'
  | 'type'
  | 'date-time'
  | 'date'
  | 'range'
  | 'additional property';

export interface PayloadCase {
  name: string;
  rule: RuleKind;
  payload: unknown;
  valid: boolean;
  /** A substring the readable errors must contain (invalid cases). */
  error?: string;
}

type Path = (string | number)[];
const pointer = (path: Path) => (path.length === 0 ? '/' : `/${path.join('/')}`);
const DATE_TIME = '2024-05-01T10:15:30Z';
const DATE = '2024-05-01';

/** A payload holding every field of the spec's list, each with a valid value. */
export function sampleOf(fields: Fields, onlyRequired = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (onlyRequired && !field.required) continue;
    out[key] = sampleValue(field, onlyRequired);
  }
  return out;
}

function sampleValue(field: Field, onlyRequired: boolean): unknown {
  switch (field.kind) {
    case 'number': {
      const v = field.min !== undefined && field.max !== undefined ? (field.min + field.max) / 2 : (field.min ?? 0) + 12.5;
      return field.integer ? Math.round(v) : v;
    }
    case 'string':
      return 'text';
    case 'boolean':
      return true;
    case 'date-time':
      return DATE_TIME;
    case 'date':
      return DATE;
    case 'enum':
      return field.values[0];
    case 'object':
      return sampleOf(field.fields, onlyRequired);
    case 'array':
      return [sampleValue(field.items, onlyRequired)];
  }
}

/** A value of the wrong JSON type for the field. */
function wrongType(field: Field): unknown {
  switch (field.kind) {
    case 'number':
      return '12.5';
    case 'boolean':
      return 'true';
    case 'object':
      return 'not an object';
    case 'array':
      return { not: 'an array' };
    default:
      return 42; // string, date-time, date, enum
  }
}

function mutate(base: unknown, path: Path, change: (parent: Record<string | number, unknown>, key: string | number) => void): unknown {
  const copy = structuredClone(base);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path[path.length - 1]!);
  return copy;
}
const setAt = (base: unknown, path: Path, value: unknown) => mutate(base, path, (p, k) => (p[k] = value));
const deleteAt = (base: unknown, path: Path) => mutate(base, path, (p, k) => delete p[k]);

/**
 * Every case the spec's field list implies for one item: the full and the minimal sample are
 * accepted; each required field removed, each wrong type, each unlisted enum or unit value, each
 * malformed date-time and each out-of-range number is rejected; each optional field removed and
 * each listed enum value is accepted; an unknown top-level field is rejected.
 */
export function casesFor(fields: Fields): PayloadCase[] {
  const full = sampleOf(fields);
  const cases: PayloadCase[] = [
    { name: 'every field', rule: 'sample', payload: full, valid: true },
    { name: 'only the required fields', rule: 'sample', payload: sampleOf(fields, true), valid: true },
    { name: 'an unknown top-level field', rule: 'additional property', payload: { ...full, vin: 'WBA00000000000001' }, valid: false, error: '/ must NOT have additional properties: vin' },
    { name: 'an array instead of an object', rule: 'type', payload: [full], valid: false, error: '/ must be object' },
  ];
  const walk = (fs: Fields, prefix: Path) => {
    for (const [key, field] of Object.entries(fs)) fieldCases(cases, full, [...prefix, key], key, field, walk);
  };
  walk(fields, []);
  return cases;
}

function fieldCases(cases: PayloadCase[], full: unknown, path: Path, key: string, field: Field, walk: (fs: Fields, prefix: Path) => void): void {
  const at = pointer(path);
  if (field.required) {
    cases.push({ name: `${at} missing`, rule: 'required field', payload: deleteAt(full, path), valid: false, error: `${pointer(path.slice(0, -1))} must have required property '${key}'` });
  } else {
    cases.push({ name: `${at} left out (optional)`, rule: 'optional field', payload: deleteAt(full, path), valid: true });
  }
  cases.push({ name: `${at} of the wrong type`, rule: 'type', payload: setAt(full, path, wrongType(field)), valid: false, error: `${at} must be` });
  switch (field.kind) {
    case 'enum': {
      const rule = key === 'unit' ? 'unit enumeration' : 'enumeration';
      for (const v of field.values) cases.push({ name: `${at} = ${v}`, rule, payload: setAt(full, path, v), valid: true });
      const allowed = `${at} must be equal to one of the allowed values: ${field.values.join(', ')}`;
      cases.push({ name: `${at} unlisted`, rule, payload: setAt(full, path, 'NOT_LISTED'), valid: false, error: allowed });
      const variant = field.values[0]!.toLowerCase() === field.values[0] ? field.values[0]!.toUpperCase() : field.values[0]!.toLowerCase();
      cases.push({ name: `${at} = ${variant} (case differs)`, rule, payload: setAt(full, path, variant), valid: false, error: allowed });
      break;
    }
    case 'date-time':
      cases.push({ name: `${at} with offset and fraction`, rule: 'date-time', payload: setAt(full, path, '2024-05-01T12:15:30.250+02:00'), valid: true });
      cases.push({ name: `${at} with a negative offset`, rule: 'date-time', payload: setAt(full, path, '2024-05-01T05:15:30-05:00'), valid: true });
      // RFC 3339 section 5.6 only: upper-case T and Z, seconds, an offset written ±hh:mm.
      for (const bad of ['yesterday', '2024-05-01', '2024-05-01T10:15:30', '2024-13-01T10:15:30Z', '1714558530', '2024-05-01 10:15:30Z', '2024-05-01t10:15:30Z', '2024-05-01T10:15:30z', '2024-05-01T10:15Z', '2024-05-01T12:15:30+0200', '2024-05-01T12:15:30+02', ' 2024-05-01T10:15:30Z']) {
        cases.push({ name: `${at} = ${bad}`, rule: 'date-time', payload: setAt(full, path, bad), valid: false, error: `${at} must match format "date-time"` });
      }
      break;
    case 'date':
      // A calendar date, RFC 3339 full-date: no time, no other order, a day that exists.
      cases.push({ name: `${at} = 2024-02-29 (leap day)`, rule: 'date', payload: setAt(full, path, '2024-02-29'), valid: true });
      for (const bad of ['2024-05-01T10:15:30Z', '01.05.2024', '2024-5-1', '2023-02-29', '2024-13-01', 'today']) {
        cases.push({ name: `${at} = ${bad}`, rule: 'date', payload: setAt(full, path, bad), valid: false, error: `${at} must match format "date"` });
      }
      break;
    case 'number': {
      const step = field.integer ? 1 : 0.5;
      if (field.min !== undefined && field.exclusiveMin) {
        cases.push({ name: `${at} just above its minimum`, rule: 'range', payload: setAt(full, path, field.min + step), valid: true });
        cases.push({ name: `${at} at its (excluded) minimum`, rule: 'range', payload: setAt(full, path, field.min), valid: false, error: `${at} must be >` });
        cases.push({ name: `${at} below its minimum`, rule: 'range', payload: setAt(full, path, field.min - step), valid: false, error: `${at} must be >` });
      } else if (field.min !== undefined) {
        cases.push({ name: `${at} at its minimum`, rule: 'range', payload: setAt(full, path, field.min), valid: true });
        cases.push({ name: `${at} below its minimum`, rule: 'range', payload: setAt(full, path, field.min - step), valid: false, error: `${at} must be >=` });
      }
      if (field.max !== undefined) {
        cases.push({ name: `${at} at its maximum`, rule: 'range', payload: setAt(full, path, field.max), valid: true });
        cases.push({ name: `${at} above its maximum`, rule: 'range', payload: setAt(full, path, field.max + step), valid: false, error: `${at} must be <=` });
      }
      if (field.integer) {
        cases.push({ name: `${at} a fraction`, rule: 'range', payload: setAt(full, path, (field.min ?? 0) + 2.5), valid: false, error: `${at} must be multiple of 1` });
      }
      break;
    }
    case 'object':
      walk(field.fields, path);
      break;
    case 'array':
      cases.push({ name: `${at} empty`, rule: 'sample', payload: setAt(full, path, []), valid: true });
      cases.push({ name: `${at}/0 of the wrong type`, rule: 'type', payload: setAt(full, [...path, 0], wrongType(field.items)), valid: false, error: `${at}/0 must be` });
      if (field.items.kind === 'object') walk(field.items.fields, [...path, 0]);
      break;
    default:
      break;
  }
}
