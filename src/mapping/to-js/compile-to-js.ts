/**
 * A mapping's JSONata AST as a JavaScript function, or the reason it cannot be one.
 *
 * The function returns the mapping's output for the well-typed common case and throws `Bail`
 * for anything it does not model exactly; the caller (../compile.ts) then evaluates that input
 * with the interpreter. How the limits keep their meaning (see mappings/README.md):
 * - maxDepth: the compiled code has no recursion (a mapping's function called from inside one
 *   bails out, and the interpreter stops the recursion at maxDepth), so its depth is bounded by
 *   the mapping's shape; a mapping whose bound reaches maxDepth is not compiled. The limit guards
 *   against runaway recursion; the interpreter's count also grows with the items of constructors
 *   it evaluates concurrently, so a limit below what a mapping needs interpreted (29 to 66 for
 *   ours, 200 by default) fails every message interpreted and none compiled.
 * - maxSequence: every sequence built is measured; a longer one bails out (the interpreter
 *   raises D2015).
 * - timeoutMs: no ranges, no higher-order functions, no recursion: the work is bounded by the
 *   input's size. The caller still hands a run that took longer than timeoutMs to the interpreter.
 */

import { depthBound, boundNames } from './analysis.ts';
import type { AstNode } from './ast.ts';
import { Unsupported } from './bail.ts';
import { Frame } from './frame.ts';
import { createSequence, type Seq } from './sequence.ts';
import { translate } from './translate.ts';

export type CompiledRun = (input: unknown, bindings: Record<string, unknown>) => unknown;

export type Translation = { ok: true; run: CompiledRun } | { ok: false; reason: string };

/** The limits the translation depends on (../compile.ts's MappingLimits). */
export interface TranslationLimits {
  maxDepth: number;
  maxSequence: number;
}

export function translateMapping(tree: object, limits: TranslationLimits): Translation {
  const ast = tree as AstNode;
  try {
    const bound = depthBound(ast);
    if (limits.maxDepth > 0 && bound >= limits.maxDepth) {
      return { ok: false, reason: `its nesting (up to ${bound} levels) reaches MAPPING_MAX_DEPTH (${limits.maxDepth})` };
    }
    const root = translate(ast, { max: limits.maxSequence, bound: boundNames(ast), inLambda: false });
    return {
      ok: true,
      run: (input, bindings) => {
        const env = new Frame(undefined, false);
        for (const key of Object.keys(bindings)) env.bind(key, bindings[key]);
        env.bind('$', input);
        let context = input;
        if (Array.isArray(input) && (input as Seq).sequence !== true) {
          const wrapper = createSequence();
          wrapper.push(input);
          wrapper.outerWrapper = true;
          context = wrapper;
        }
        return root(context, env);
      },
    };
  } catch (err) {
    if (err instanceof Unsupported) return { ok: false, reason: `it uses ${err.message}` };
    // A syntax tree the translator did not expect: the mapping still loads, interpreted.
    return { ok: false, reason: `the translator failed on it (${(err as Error).message})` };
  }
}
