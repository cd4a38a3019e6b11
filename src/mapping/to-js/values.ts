/**
 * JSONata's value rules, ported from its interpreter (jsonata 2.x `fn.boolean`, `fn.string`,
 * `isNumeric`, `isDeepEqual`): truthiness of `?:`, `and`, `or` and filters, and the text `&`
 * and `$string` make of a value. Where the interpreter throws, these throw too; the compiled
 * mapping turns any throw into a bail-out, and the interpreter raises the real error.
 */

import { bail } from './bail.ts';
import { charge } from './deadline.ts';
import { isJsonataFunction } from './sequence.ts';

/** A number that is not NaN; ±Infinity is an error in JSONata (D1001). */
export function isNumeric(n: unknown): n is number {
  if (typeof n !== 'number') return false;
  if (Number.isNaN(n)) return false;
  if (!Number.isFinite(n)) bail('an infinite number');
  return true;
}

/** `fn.boolean`: the effective boolean value, undefined for undefined. */
export function toBoolean(arg: unknown): boolean | undefined {
  if (arg === undefined) return undefined;
  if (Array.isArray(arg)) {
    if (arg.length === 1) return toBoolean(arg[0]);
    if (arg.length > 1) return arg.filter((v) => toBoolean(v)).length > 0;
    return false;
  }
  if (typeof arg === 'string') return arg.length > 0;
  if (isNumeric(arg)) return arg !== 0;
  if (arg !== null && typeof arg === 'object' && !isJsonataFunction(arg)) return Object.keys(arg).length > 0;
  return arg === true;
}

/** `and`/`or` read undefined as false. */
export function boolize(value: unknown): boolean {
  return toBoolean(value) ?? false;
}

export function isDeepEqual(lhs: unknown, rhs: unknown): boolean {
  charge();
  if (lhs === rhs) return true;
  if (typeof lhs === 'object' && typeof rhs === 'object' && lhs !== null && rhs !== null) {
    if (Array.isArray(lhs) && Array.isArray(rhs)) {
      if (lhs.length !== rhs.length) return false;
      for (let i = 0; i < lhs.length; i++) if (!isDeepEqual(lhs[i], rhs[i])) return false;
      return true;
    }
    const lkeys = Object.getOwnPropertyNames(lhs).sort();
    const rkeys = Object.getOwnPropertyNames(rhs).sort();
    if (lkeys.length !== rkeys.length) return false;
    for (let i = 0; i < lkeys.length; i++) if (lkeys[i] !== rkeys[i]) return false;
    for (const key of lkeys) if (!isDeepEqual((lhs as Record<string, unknown>)[key], (rhs as Record<string, unknown>)[key])) return false;
    return true;
  }
  return false;
}

/** `fn.string` without prettifying: numbers to 15 significant digits, objects as JSON. */
export function toJsonataString(arg: unknown): string | undefined {
  if (arg === undefined) return undefined;
  if (typeof arg === 'string') return arg;
  if (isJsonataFunction(arg)) return '';
  if (typeof arg === 'number' && !Number.isFinite(arg)) bail('$string of an infinite number');
  const value = Array.isArray(arg) && (arg as { outerWrapper?: boolean }).outerWrapper ? arg[0] : arg;
  return JSON.stringify(value, (_key, val: unknown) => {
    charge();
    if (val !== undefined && val !== null && isNumeric(val)) return !Number.isInteger(val) ? Number(val.toPrecision(15)) : val;
    return val && isJsonataFunction(val) ? '' : val;
  });
}
