/**
 * Paths, steps and filters at run time, ported from jsonata 2.x (`evaluatePath`,
 * `evaluateStep`, `evaluateFilter`): each step runs on every item of the previous step's
 * sequence and the results are flattened; the last step returns a lone JSON array as is;
 * a filter keeps the items whose predicate is truthy, or whose position a number names.
 */

import { charge } from './deadline.ts';
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
      charge();
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

/** What evaluateStep makes of its per-item results (`result`): flattened, a lone JSON array kept as is. */
function flatten(result: Seq, lastStep: boolean, max: number): Seq {
  if (lastStep && result.length === 1 && Array.isArray(result[0]) && !isSequence(result[0])) return result[0];
  const flat = createSequence();
  for (const res of result) {
    if (!Array.isArray(res) || (res as Seq).cons) flat.push(res);
    else {
      charge(res.length);
      for (let i = 0; i < res.length; i++) flat.push(res[i]);
    }
  }
  checkLength(flat, max);
  return flat;
}

function evaluateStep(step: Step, input: Seq, env: Frame, lastStep: boolean, max: number): Seq {
  const result = createSequence();
  for (let i = 0; i < input.length; i++) {
    charge();
    let res = step.node(input[i], env);
    for (const stage of step.stages) res = applyFilter(stage, res, env, max);
    if (res !== undefined) result.push(res);
  }
  checkLength(result, max);
  return flatten(result, lastStep, max);
}

/**
 * `plain`: the path has no `[]`, no predicate of its own and no keepArray, so a result of one
 * item may be returned as that item (what `evaluate` would unwrap it to) and none as undefined.
 */
export function evaluatePath(steps: readonly Step[], keepSingletonArray: boolean, plain: boolean, input: unknown, env: Frame, max: number): unknown {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let inputSequence: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let resultSequence: any;
  let i = 0;
  if (Array.isArray(input) && !steps[0]!.isVariable) inputSequence = input;
  else {
    // While the input of a step is one value that is not an array and the step has no filter,
    // every sequence of the loop below holds one item: walk the values without building them.
    let value = input;
    let arrayResult: Seq | undefined;
    for (; i < steps.length; i++) {
      const step = steps[i]!;
      if (step.stages.length > 0 || (i === 0 && step.consarray)) break;
      const res = step.node(value, env);
      if (res === undefined) return plain ? undefined : finishPath(createSequence(), keepSingletonArray);
      if (Array.isArray(res)) {
        // What evaluateStep makes of one input giving this array; the loop below goes on from there.
        arrayResult = flatten(sequenceOf(res), i === steps.length - 1, max);
        break;
      }
      value = res;
    }
    if (i === steps.length) return plain ? value : finishPath(sequenceOf(value), keepSingletonArray);
    if (arrayResult) {
      if (arrayResult.length === 0) return finishPath(arrayResult, keepSingletonArray);
      inputSequence = arrayResult;
      resultSequence = arrayResult;
      i++;
    } else inputSequence = sequenceOf(value);
  }
  for (; i < steps.length; i++) {
    const step = steps[i]!;
    if (i === 0 && step.consarray) resultSequence = step.node(inputSequence, env);
    else resultSequence = evaluateStep(step, inputSequence, env, i === steps.length - 1, max);
    if (resultSequence === undefined || resultSequence.length === 0) break;
    inputSequence = resultSequence;
  }
  return finishPath(resultSequence, keepSingletonArray);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function finishPath(resultSequence: any, keepSingletonArray: boolean): unknown {
  if (keepSingletonArray) {
    if (Array.isArray(resultSequence) && (resultSequence as Seq).cons && !(resultSequence as Seq).sequence) {
      resultSequence = sequenceOf(resultSequence);
    }
    resultSequence.keepSingleton = true;
  }
  return resultSequence;
}
