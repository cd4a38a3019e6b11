/**
 * JSONata's sequences, as its interpreter (jsonata 2.x, `evaluate`, `fn.lookup`, `fn.append`)
 * has them: an array flagged `sequence`, flattened by path steps and unwrapped to its single
 * item (or to undefined when empty) after each expression. Ported line for line: the flags
 * (`sequence`, `keepSingleton`, `cons`, `outerWrapper`) decide results, so they are kept too.
 */

import { bail } from './bail.ts';
import { charge } from './deadline.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Seq = any[] & { sequence?: boolean; keepSingleton?: boolean; cons?: boolean; outerWrapper?: boolean; tupleStream?: boolean };

export function createSequence(): Seq {
  const s: Seq = [];
  s.sequence = true;
  return s;
}

export function sequenceOf(item: unknown): Seq {
  const s = createSequence();
  s.push(item);
  return s;
}

export function isSequence(value: unknown): value is Seq {
  return Array.isArray(value) && (value as Seq).sequence === true;
}

/**
 * The interpreter throws D2015 when a sequence outgrows MAPPING's maxSequence: the compiled code
 * hands such an input to the interpreter, which raises the error itself. 0 switches it off.
 */
export function checkLength(s: { length: number }, max: number): void {
  if (max > 0 && s.length > max) bail(`a sequence longer than ${max}`);
}

/** What `evaluate` does to every expression's result: unwrap a sequence of 0 or 1 items. */
export function finish(result: unknown, keepArray: boolean): unknown {
  if (result && isSequence(result) && !result.tupleStream) {
    if (keepArray) result.keepSingleton = true;
    if (result.length === 0) return undefined;
    if (result.length === 1) return result.keepSingleton ? result : result[0];
  }
  return result;
}

export function isJsonataFunction(value: unknown): boolean {
  const v = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown } | null | undefined;
  return (!!v && (v._jsonata_function === true || v._jsonata_lambda === true)) || typeof value === 'function';
}

/** `fn.lookup`: a field of an object, or of every object in an array (flattened one level). */
export function lookup(input: unknown, key: string, max: number): unknown {
  if (Array.isArray(input)) {
    const result = createSequence();
    charge(input.length);
    for (let i = 0; i < input.length; i++) {
      const res = lookup(input[i], key, max);
      if (res !== undefined) {
        if (Array.isArray(res)) for (const v of res) result.push(v);
        else result.push(res);
      }
    }
    checkLength(result, max);
    return result;
  }
  if (input !== null && typeof input === 'object' && Object.prototype.hasOwnProperty.call(input, key) && !isJsonataFunction(input)) {
    return (input as Record<string, unknown>)[key];
  }
  return undefined;
}

/** `fn.append`: undefined drops out; anything else is concatenated as an array. */
export function append(a: unknown, b: unknown, max: number): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const left = Array.isArray(a) ? a : sequenceOf(a);
  const right = Array.isArray(b) ? b : [b];
  checkLength({ length: left.length + right.length }, max);
  charge(left.length + right.length);
  return left.concat(right);
}
