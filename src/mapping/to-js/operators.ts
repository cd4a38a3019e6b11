/**
 * JSONata's binary operators on evaluated operands (jsonata 2.x `evaluateNumericExpression`,
 * `evaluateEqualityExpression`, `evaluateComparisonExpression`, `evaluateStringConcat`,
 * `evaluateIncludesExpression`). A type error of JSONata (T2001, T2009, T2010, ...) is a
 * bail-out here: the interpreter reruns the input and raises it with its position and line.
 */

import { bail } from './bail.ts';
import { charge } from './deadline.ts';
import { isDeepEqual, isNumeric, toJsonataString } from './values.ts';

export type BinaryOp = (lhs: unknown, rhs: unknown) => unknown;

function numeric(op: (a: number, b: number) => number): BinaryOp {
  return (lhs, rhs) => {
    if (lhs !== undefined && !isNumeric(lhs)) bail('arithmetic on a non-number');
    if (rhs !== undefined && !isNumeric(rhs)) bail('arithmetic on a non-number');
    if (lhs === undefined || rhs === undefined) return undefined;
    return op(lhs as number, rhs as number);
  };
}

function comparison(op: (a: number | string, b: number | string) => boolean): BinaryOp {
  return (lhs, rhs) => {
    const lt = typeof lhs;
    const rt = typeof rhs;
    const lok = lt === 'undefined' || lt === 'string' || lt === 'number';
    const rok = rt === 'undefined' || rt === 'string' || rt === 'number';
    if (!lok || !rok) bail('comparison of a value that is not a string or a number');
    if (lt === 'undefined' || rt === 'undefined') return undefined;
    if (lt !== rt) bail('comparison of a string with a number');
    return op(lhs as number | string, rhs as number | string);
  };
}

export const BINARY_OPERATORS: Record<string, BinaryOp> = {
  '+': numeric((a, b) => a + b),
  '-': numeric((a, b) => a - b),
  '*': numeric((a, b) => a * b),
  '/': numeric((a, b) => a / b),
  '%': numeric((a, b) => a % b),
  '=': (lhs, rhs) => (lhs === undefined || rhs === undefined ? false : isDeepEqual(lhs, rhs)),
  '!=': (lhs, rhs) => (lhs === undefined || rhs === undefined ? false : !isDeepEqual(lhs, rhs)),
  '<': comparison((a, b) => a < b),
  '<=': comparison((a, b) => a <= b),
  '>': comparison((a, b) => a > b),
  '>=': comparison((a, b) => a >= b),
  '&': (lhs, rhs) => (lhs === undefined ? '' : toJsonataString(lhs)!).concat(rhs === undefined ? '' : toJsonataString(rhs)!),
  in: (lhs, rhs) => {
    if (lhs === undefined || rhs === undefined) return false;
    const list = Array.isArray(rhs) ? rhs : [rhs];
    charge(list.length);
    for (const v of list) if (v === lhs) return true;
    return false;
  },
};
