/**
 * What the translator needs to know of a whole mapping before translating it: the variable
 * names it binds (so a call of `$name` is known to be a call of the mapping's own function, not
 * of a built-in), how deep JSONata's own count can go while it evaluates the mapping
 * (MAPPING_MAX_DEPTH), and where a `:=` would be seen differently by the two engines.
 */

import type { AstNode } from './ast.ts';

function children(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object' && typeof (v as AstNode).type === 'string') out.push(v as AstNode);
  };
  for (const [key, value] of Object.entries(node)) if (key !== 'position') visit(value);
  return out;
}

/** Names bound by `:=` or as a function's parameter, anywhere in the mapping. */
export function boundNames(ast: AstNode): Set<string> {
  const names = new Set<string>();
  const walk = (n: AstNode): void => {
    if (n.type === 'bind' && n.lhs?.type === 'variable') names.add(String(n.lhs.value));
    if (n.type === 'lambda') for (const a of n.arguments ?? []) names.add(String(a.value));
    children(n).forEach(walk);
  };
  walk(ast);
  return names;
}

/** The bodies of the functions the mapping defines (not JSONata's tail-call thunks). */
function lambdaBodies(node: AstNode, out: AstNode[] = []): AstNode[] {
  if (node.type === 'lambda' && !node.thunk && node.body) out.push(node.body);
  children(node).forEach((c) => lambdaBodies(c, out));
  return out;
}

/**
 * The most JSONata's depth counter (its `stack` option, D1011) can reach while evaluating
 * `node`, counting the node's own frame. The interpreter adds one per `evaluate` call in
 * flight, and evaluates the items of an array constructor and the values of an object
 * constructor at the same time (Promise.all), so their frames add up; everything else
 * (path steps, filters, operands, arguments, block statements) runs one after the other.
 * `call`: what a call of one of the mapping's functions adds (its body); a call from inside a
 * function adds nothing here, since the compiled code hands such a run to the interpreter.
 */
function interpreterDepth(node: AstNode | undefined, call: number, bound: ReadonlySet<string>): number {
  if (!node) return 0;
  const d = (n: AstNode | undefined) => interpreterDepth(n, call, bound);
  let inner = 0;
  switch (node.type) {
    case 'path':
      for (const step of node.steps ?? []) {
        inner = Math.max(inner, d(step));
        for (const stage of step.stages ?? []) inner = Math.max(inner, d(stage.expr));
      }
      break;
    case 'binary':
      inner = Math.max(d(node.lhs as AstNode), d(node.rhs));
      break;
    case 'unary':
      if (node.value === '[') inner = (node.expressions ?? []).reduce((sum, e) => sum + d(e), 0);
      else if (node.value === '{') {
        let keys = 0;
        let values = 0;
        for (const [k, v] of (node.lhs ?? []) as unknown as AstNode[][]) {
          keys = Math.max(keys, d(k));
          values += d(v);
        }
        inner = Math.max(keys, values);
      } else inner = d(node.expression);
      break;
    case 'condition':
      inner = Math.max(d(node.condition), d(node.then), d(node.else));
      break;
    case 'block':
      for (const e of node.expressions ?? []) inner = Math.max(inner, d(e));
      break;
    case 'bind':
      inner = d(node.rhs);
      break;
    case 'function': {
      // The procedure (a variable: one frame), then each argument, then the call.
      inner = 1;
      for (const a of node.arguments ?? []) inner = Math.max(inner, d(a));
      if (node.procedure?.type === 'variable' && bound.has(String(node.procedure.value))) inner = Math.max(inner, call);
      break;
    }
    case 'lambda':
      // A tail call: the thunk, then (in the caller's apply) the procedure and the arguments.
      if (node.thunk) {
        inner = 1;
        for (const a of node.body?.arguments ?? []) inner = Math.max(inner, d(a));
      }
      break;
  }
  for (const p of node.predicate ?? []) inner = Math.max(inner, d(p.expr));
  return 1 + inner;
}

/**
 * A bound on JSONata's own depth count (MAPPING_MAX_DEPTH) over every input the compiled code
 * evaluates itself. The interpreter's count depends on how its concurrent evaluations of a
 * constructor's items interleave, so it is not modelled run by run; this bound holds for every
 * interleaving. A mapping whose bound exceeds MAPPING_MAX_DEPTH runs interpreted: the compiled
 * code then never returns an output the interpreter would have refused with D1011. The bound is
 * above what a mapping really needs (mappings/README.md lists both for ours).
 */
export function depthBound(ast: AstNode): number {
  const bound = boundNames(ast);
  const call = Math.max(0, ...lambdaBodies(ast).map((b) => interpreterDepth(b, 0, bound)));
  return interpreterDepth(ast, call, bound);
}

/**
 * A `:=` in an item of an array or object constructor that no parentheses (a block, which has
 * its own frame) or function body encloses: it binds in the frame the other items read, and
 * the interpreter evaluates the items at the same time, so an item reading the variable sees it
 * unbound (`[$x := a, $x]` is `[5]` interpreted), where in-order code would see it bound.
 */
export function bindsInSharedFrame(item: AstNode): boolean {
  if (item.type === 'bind') return true;
  if (item.type === 'block' || item.type === 'lambda') return false;
  return children(item).some(bindsInSharedFrame);
}
