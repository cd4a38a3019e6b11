/**
 * Array and object constructors, ported from jsonata 2.x (`evaluateUnary` `[` and
 * `evaluateGroupExpression`). An array drops undefined items and flattens the sequences and
 * arrays it is given (a nested `[...]` stays one item). An object drops keys whose value is
 * undefined. An object built over an array context groups the array's items by key in JSONata:
 * not modelled, it bails out (our mappings build objects over one object at a time).
 */

import { bindsInSharedFrame } from './analysis.ts';
import type { AstNode } from './ast.ts';
import { bail, Unsupported } from './bail.ts';
import type { Node } from './frame.ts';
import { charge } from './deadline.ts';
import { append } from './sequence.ts';
import type { Scope, Translate } from './scope.ts';

/** The interpreter evaluates a constructor's items at the same time: whether one sees another's `:=` depends on how they interleave (./analysis.ts). */
function checkBinds(items: AstNode[]): void {
  if (items.some(bindsInSharedFrame)) throw new Unsupported('a := inside an array or object constructor, outside parentheses');
}

export function arrayConstructor(ast: AstNode, scope: Scope, translate: Translate): Node {
  checkBinds(ast.expressions ?? []);
  const items = (ast.expressions ?? []).map((e) => ({ node: translate(e, scope), nested: e.value === '[' }));
  const cons = ast.consarray === true;
  const { max } = scope;
  return (input, env) => {
    let result: unknown[] = [];
    charge(items.length);
    for (const item of items) {
      const value = item.node(input, env);
      if (value === undefined) continue;
      if (item.nested) result.push(value);
      else result = append(result, value, max) as unknown[];
    }
    if (cons) Object.defineProperty(result, 'cons', { enumerable: false, configurable: false, value: true });
    return result;
  };
}

const RESERVED_KEYS = new Set(['_jsonata_lambda', '_jsonata_function']);

export function objectConstructor(ast: AstNode, scope: Scope, translate: Translate): Node {
  checkBinds(((ast.lhs ?? []) as unknown as AstNode[][]).flat());
  const pairs = ((ast.lhs ?? []) as unknown as AstNode[][]).map(([k, v]) => ({
    key: k!.type === 'string' && !k!.predicate && !k!.keepArray ? String(k!.value) : translate(k!, scope),
    value: translate(v!, scope),
  }));
  const literal = pairs.filter((p) => typeof p.key === 'string').map((p) => p.key as string);
  if (new Set(literal).size !== literal.length) throw new Unsupported('an object with a key twice');
  if (literal.some((k) => RESERVED_KEYS.has(k))) throw new Unsupported('an object with a reserved key');
  const dynamic = pairs.some((p) => typeof p.key !== 'string');
  // An ordinary object where every key is known and none is "__proto__" (which would set the
  // prototype): the pipeline keeps such an output as it is (src/pipeline/harmonize.ts
  // toPlainJson), where it copies one without a prototype.
  const ordinary = !dynamic && !literal.includes('__proto__');
  return (input, env) => {
    if (Array.isArray(input)) return bail('an object constructor over an array');
    const result: Record<string, unknown> = ordinary ? {} : Object.create(null);
    const seen = dynamic ? new Set<string>(literal) : undefined;
    charge(pairs.length);
    for (const pair of pairs) {
      let key: unknown = pair.key;
      if (typeof key !== 'string') {
        key = (pair.key as Node)(input, env);
        if (key === undefined) continue;
        if (typeof key !== 'string' || RESERVED_KEYS.has(key) || seen!.has(key)) return bail('an object key that JSONata refuses');
        seen!.add(key);
      }
      const value = pair.value(input, env);
      if (value !== undefined) result[key as string] = value;
    }
    return result;
  };
}
