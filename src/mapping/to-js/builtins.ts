/**
 * The JSONata built-in functions the translator supports, ported from jsonata 2.x (`fn.*`) with
 * their signature checks: an argument of a type the signature refuses (T0410, T0412) is a
 * bail-out, so the interpreter raises the error. A built-in not listed here makes the mapping
 * run interpreted. `$error` always bails out: the interpreter throws it with its position.
 */

import { bail } from './bail.ts';
import { charge } from './deadline.ts';
import { checkLength, createSequence, isJsonataFunction, lookup } from './sequence.ts';
import { toJsonataString } from './values.ts';

export interface Builtin {
  /** The numbers of arguments a call may pass (others run interpreted). */
  arities: readonly number[];
  call(args: unknown[], maxSequence: number): unknown;
}

/** The symbol JSONata's signature validation gives a value. */
export function symbolOf(value: unknown): string {
  if (isJsonataFunction(value)) return 'f';
  switch (typeof value) {
    case 'string':
      return 's';
    case 'number':
      return 'n';
    case 'boolean':
      return 'b';
    case 'object':
      return value === null ? 'l' : Array.isArray(value) ? 'a' : 'o';
    default:
      return 'm';
  }
}

const numberOrMissing = (v: unknown): number | undefined => (v === undefined || typeof v === 'number' ? v : bail('a number argument of another type'));

/** An `a<t>` parameter: the array, a single value of type t wrapped, or undefined. */
function arrayOf(type: 's' | 'o', v: unknown): unknown[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return symbolOf(v) === type ? [v] : bail(`an argument that is not an array of ${type}`);
  if (v.length > 0) {
    const first = symbolOf(v[0]);
    if (first !== type || v.some((x) => symbolOf(x) !== first)) bail(`an array argument with items that are not all ${type}`);
  }
  return v;
}

function keys(arg: unknown, max: number): unknown[] {
  let result = createSequence();
  if (Array.isArray(arg)) {
    const merged: Record<string, boolean> = Object.create(null);
    for (const item of arg) {
      const found = keys(item, max);
      charge(found.length);
      for (const key of found) merged[key as string] = true;
    }
    result = keys(merged, max) as typeof result;
  } else if (arg !== null && typeof arg === 'object' && !isJsonataFunction(arg)) {
    for (const key of Object.keys(arg)) result.push(key);
  }
  checkLength(result, max);
  return result;
}

/** `$round`: half to even, shifting the decimal point in the number's text as JSONata does. */
function round(arg: number | undefined, precision: number | undefined): number | undefined {
  if (arg === undefined) return undefined;
  let value = arg;
  if (precision) {
    const parts = value.toString().split('e');
    value = +(parts[0] + 'e' + (parts[1] ? +parts[1] + precision : precision));
  }
  let result = Math.round(value);
  if (Math.abs(result - value) === 0.5 && Math.abs(result % 2) === 1) result = result - 1;
  if (precision) {
    const parts = result.toString().split('e');
    result = +(parts[0] + 'e' + (parts[1] ? +parts[1] - precision : -precision));
  }
  return Object.is(result, -0) ? 0 : result;
}

export const BUILTINS: Record<string, Builtin> = {
  exists: { arities: [1], call: ([v]) => v !== undefined },
  floor: { arities: [1], call: ([v]) => { const n = numberOrMissing(v); return n === undefined ? undefined : Math.floor(n); } },
  round: { arities: [1, 2], call: ([v, p]) => round(numberOrMissing(v), numberOrMissing(p)) },
  string: { arities: [1], call: ([v]) => toJsonataString(v) },
  count: { arities: [1], call: ([v]) => (v === undefined ? 0 : Array.isArray(v) ? v.length : 1) },
  join: {
    arities: [1, 2],
    call: ([strs, sep]) => {
      const list = arrayOf('s', strs);
      if (sep !== undefined && typeof sep !== 'string') bail('a separator that is not a string');
      if (list !== undefined) charge(list.length);
      return list === undefined ? undefined : list.join(sep ?? '');
    },
  },
  merge: {
    arities: [1],
    call: ([v]) => {
      const list = arrayOf('o', v);
      if (list === undefined) return undefined;
      const result: Record<string, unknown> = Object.create(null);
      for (const obj of list) {
        const props = Object.keys(obj as object);
        charge(props.length + 1);
        for (const prop of props) result[prop] = (obj as Record<string, unknown>)[prop];
      }
      return result;
    },
  },
  keys: { arities: [1], call: ([v], max) => keys(v, max) },
  lookup: {
    arities: [2],
    call: ([obj, key], max) => (typeof key === 'string' ? lookup(obj, key, max) : bail('a $lookup key that is not a string')),
  },
  error: { arities: [0, 1], call: () => bail('$error: the interpreter raises it') },
};
