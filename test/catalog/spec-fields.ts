/**
 * A small notation for the spec's field lists, so test/catalog/spec-items.ts can copy spec
 * section 2.2 almost word for word. It is the tests' oracle, written independently of the
 * catalog files: a schema that forgets a `*` or an enum value fails against it.
 */
export type Field =
  | { kind: 'number'; required: boolean; min?: number; max?: number }
  | { kind: 'string' | 'boolean' | 'date-time'; required: boolean }
  | { kind: 'enum'; required: boolean; values: string[] }
  | { kind: 'object'; required: boolean; fields: Fields }
  | { kind: 'array'; required: boolean; items: Field };

export type Fields = Record<string, Field>;

/** `number*` style: a trailing `*` marks the field required, as in the spec. */
export function f(spec: 'number' | 'number*' | 'string' | 'string*' | 'boolean' | 'boolean*' | 'date-time' | 'date-time*'): Field {
  const required = spec.endsWith('*');
  const kind = spec.replace('*', '') as 'number' | 'string' | 'boolean' | 'date-time';
  return { kind, required };
}

/** A required number within bounds (the version-2 items). */
export const range = (min: number, max?: number): Field => ({ kind: 'number', required: true, min, ...(max === undefined ? {} : { max }) });
/** Required enumeration, the spec's `enum*`. */
export const E = (...values: string[]): Field => ({ kind: 'enum', required: true, values });
/** Optional enumeration. */
export const e = (...values: string[]): Field => ({ kind: 'enum', required: false, values });
export const obj = (fields: Fields, required = false): Field => ({ kind: 'object', required, fields });
export const arr = (items: Field, required = false): Field => ({ kind: 'array', required, items });

export const TS = f('date-time*');
/** `value*` number, `unit*` enum, `timestamp*`: the most common shape. */
export const valueUnit = (...units: string[]): Fields => ({ value: f('number*'), unit: E(...units), timestamp: TS });
export const valueEnum = (...values: string[]): Fields => ({ value: E(...values), timestamp: TS });
export const valueBool = (): Fields => ({ value: f('boolean*'), timestamp: TS });
export const event = (): Fields => ({ receivedAt: f('date-time*'), timestamp: f('date-time') });
