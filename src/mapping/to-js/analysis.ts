/**
 * What the translator needs to know of a whole mapping before translating it: the variable
 * names it binds (so a call of `$name` is known to be a call of the mapping's own function, not
 * of a built-in), and a bound on how deep its compiled evaluation can nest (MAPPING_MAX_DEPTH).
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

function depth(node: AstNode): number {
  let deepest = 0;
  for (const c of children(node)) deepest = Math.max(deepest, depth(c));
  return 1 + deepest;
}

function lambdaBodies(node: AstNode, out: AstNode[] = []): AstNode[] {
  if (node.type === 'lambda' && node.body) out.push(node.body);
  children(node).forEach((c) => lambdaBodies(c, out));
  return out;
}

/**
 * How deep the compiled code nests at most: the mapping's own nesting plus that of its deepest
 * function body (the compiled code never lets a mapping's function call another: it bails out,
 * and the interpreter runs the recursion under MAPPING_MAX_DEPTH). A mapping nested deeper than
 * MAPPING_MAX_DEPTH runs interpreted. (The interpreter's own count is larger: it also counts
 * the items of a constructor it evaluates concurrently, 29 to 66 for our mappings.)
 */
export function depthBound(ast: AstNode): number {
  const bodies = lambdaBodies(ast).map(depth);
  return depth(ast) + Math.max(0, ...bodies) + 4;
}
