/**
 * A small notation for the spec's field lists, so test/catalog/spec-items.ts can copy spec
 * section 2.2 almost word for word. It is the tests' oracle, written independently of the
 * catalog files: a schema that forgets a `*` or an enum value fails against it.
 */
export type Field =
  | NumberField
  | { kind: 'string' | 'boolean' | 'date-time' | 'date'; required: boolean }
  | { kind: 'enum'; required: boolean; values: string[] }
  | { kind: 'object'; required: boolean; fields: Fields }
  | { kind: 'array'; required: boolean; items: Field };

export type Fields = Record<string, Field>;

/**
 * A number, with the bounds outside which a reading is impossible (never merely unusual).
 * `exclusiveMin`: the minimum itself is impossible too; `integer`: a count.
 */
export interface NumberField {
  kind: 'number';
  required: boolean;
  min?: number;
  max?: number;
  exclusiveMin?: boolean;
  integer?: boolean;
}

/** `number*` style: a trailing `*` marks the field required, as in the spec. */
export function f(spec: 'number' | 'number*' | 'string' | 'string*' | 'boolean' | 'boolean*' | 'date-time' | 'date-time*' | 'date' | 'date*'): Field {
  const required = spec.endsWith('*');
  const kind = spec.replace('*', '') as 'number' | 'string' | 'boolean' | 'date-time' | 'date';
  return { kind, required };
}

/** A number within bounds, required unless `required` is false. */
export const range = (min: number, max?: number, required = true): Field => ({ kind: 'number', required, min, ...(max === undefined ? {} : { max }) });
/** A count: a whole number, zero or more; required unless `required` is false. */
export const count = (required = true): Field => ({ kind: 'number', required, min: 0, integer: true });
/** A whole number without bounds (a code), optional unless `required`. */
export const whole = (required = false): Field => ({ kind: 'number', required, integer: true });
/** A required number above zero (zero itself impossible, e.g. the length of a period). */
export const positive = (): Field => ({ kind: 'number', required: true, min: 0, exclusiveMin: true });
/** Required enumeration, the spec's `enum*`. */
export const E = (...values: string[]): Field => ({ kind: 'enum', required: true, values });
/** Optional enumeration. */
export const e = (...values: string[]): Field => ({ kind: 'enum', required: false, values });
export const obj = (fields: Fields, required = false): Field => ({ kind: 'object', required, fields });
export const arr = (items: Field, required = false): Field => ({ kind: 'array', required, items });

export const TS = f('date-time*');
/** `value*` number, `unit*` enum, `timestamp*`: the most common shape. */
export const valueUnit = (...units: string[]): Fields => ({ value: f('number*'), unit: E(...units), timestamp: TS });
/** `valueUnit` whose value cannot lie outside [min, max]. */
export const valueUnitIn = (min: number, max: number | undefined, ...units: string[]): Fields => ({ value: range(min, max), unit: E(...units), timestamp: TS });
export const valueEnum = (...values: string[]): Fields => ({ value: E(...values), timestamp: TS });
export const valueBool = (): Fields => ({ value: f('boolean*'), timestamp: TS });
export const event = (): Fields => ({ receivedAt: f('date-time*'), timestamp: f('date-time') });
