/**
 * Paths, steps and filters at run time, ported from jsonata 2.x (`evaluatePath`,
 * `evaluateStep`, `evaluateFilter`): each step runs on every item of the previous step's
 * sequence and the results are flattened; the last step returns a lone JSON array as is;
 * a filter keeps the items whose predicate is truthy, or whose position a number names.
 */

import type { Frame, Node } from './frame.ts';
import { checkLength, createSequence, isSequence, sequenceOf, type Seq } from './sequence.ts';
import { isNumeric, toBoolean } from './values.ts';

/** A filter `[...]`: a literal number index, or a predicate evaluated on each item. */
export type Filter = { index: number } | { predicate: Node };

export interface Step {
  node: Node;
  stages: Filter[];
  consarray: boolean;
  isVariable: boolean;
}

export function applyFilter(filter: Filter, input: unknown, env: Frame, max: number): Seq {
  let results = createSequence();
  const list: Seq = Array.isArray(input) ? input : sequenceOf(input);
  if ('index' in filter) {
    let index = Math.floor(filter.index);
    if (index < 0) index = list.length + index;
    const item = list[index];
    if (item !== undefined) {
      if (Array.isArray(item)) results = item;
      else results.push(item);
    }
  } else {
    for (let index = 0; index < list.length; index++) {
      const item = list[index];
      let res = filter.predicate(item, env);
      if (isNumeric(res)) res = [res];
      if (Array.isArray(res) && res.filter((r) => !isNumeric(r)).length === 0) {
        for (const r of res as number[]) {
          let i = Math.floor(r);
          if (i < 0) i = list.length + i;
          if (i === index) results.push(item);
        }
      } else if (toBoolean(res)) results.push(item);
    }
  }
  checkLength(results, max);
  return results;
}

function evaluateStep(step: Step, input: Seq, env: Frame, lastStep: boolean, max: number): Seq {
  const result = createSequence();
  for (let i = 0; i < input.length; i++) {
    let res = step.node(input[i], env);
    for (const stage of step.stages) res = applyFilter(stage, res, env, max);
    if (res !== undefined) result.push(res);
  }
  checkLength(result, max);
  if (lastStep && result.length === 1 && Array.isArray(result[0]) && !isSequence(result[0])) return result[0];
  const flat = createSequence();
  for (const res of result) {
    if (!Array.isArray(res) || (res as Seq).cons) flat.push(res);
    else for (let i = 0; i < res.length; i++) flat.push(res[i]);
  }
  checkLength(flat, max);
  return flat;
}

export function evaluatePath(steps: readonly Step[], keepSingletonArray: boolean, input: unknown, env: Frame, max: number): unknown {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let inputSequence: any = Array.isArray(input) && !steps[0]!.isVariable ? input : sequenceOf(input);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let resultSequence: any;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (i === 0 && step.consarray) resultSequence = step.node(inputSequence, env);
    else resultSequence = evaluateStep(step, inputSequence, env, i === steps.length - 1, max);
    if (resultSequence === undefined || resultSequence.length === 0) break;
    inputSequence = resultSequence;
  }
  if (keepSingletonArray) {
    if (Array.isArray(resultSequence) && (resultSequence as Seq).cons && !(resultSequence as Seq).sequence) {
      resultSequence = sequenceOf(resultSequence);
    }
    resultSequence.keepSingleton = true;
  }
  return resultSequence;
}
