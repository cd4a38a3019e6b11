/**
 * A mapping's JSONata AST as a JavaScript function, or the reason it cannot be one.
 *
 * The function returns the mapping's output for the well-typed common case and throws `Bail`
 * for anything it does not model exactly; the caller (../compile.ts) then evaluates that input
 * with the interpreter. How the limits keep their meaning (see mappings/README.md):
 * - maxDepth is JSONata's own depth count. The compiled code has no recursion (a mapping's
 *   function called from inside one bails out, and the interpreter counts the recursion), and a
 *   mapping is compiled only while a bound on the count over any input (./analysis.ts) stays
 *   within maxDepth: so neither engine refuses an input the other maps.
 * - maxSequence: every sequence built is measured; a longer one bails out (the interpreter
 *   raises D2015).
 * - timeoutMs: every loop charges its work to the run's clock (./deadline.ts), which stops the
 *   run at the deadline with RunTimedOut.
 */

import { depthBound, boundNames } from './analysis.ts';
import type { AstNode } from './ast.ts';
import { Unsupported } from './bail.ts';
import { startRun } from './deadline.ts';
import { Frame } from './frame.ts';
import { createSequence, type Seq } from './sequence.ts';
import { translate } from './translate.ts';

export type CompiledRun = (input: unknown, bindings: Record<string, unknown>) => unknown;

export type Translation = { ok: true; run: CompiledRun } | { ok: false; reason: string };

/** The limits the translation depends on (../compile.ts's MappingLimits). */
export interface TranslationLimits {
  maxDepth: number;
  maxSequence: number;
  /** 0: no limit. */
  timeoutMs: number;
}

export function translateMapping(tree: object, limits: TranslationLimits): Translation {
  const ast = tree as AstNode;
  try {
    const bound = depthBound(ast);
    if (limits.maxDepth > 0 && bound > limits.maxDepth) {
      return { ok: false, reason: `JSONata's depth count for it could reach ${bound}, over MAPPING_MAX_DEPTH (${limits.maxDepth})` };
    }
    const root = translate(ast, { max: limits.maxSequence, bound: boundNames(ast), inLambda: false });
    return {
      ok: true,
      run: (input, bindings) => {
        startRun(limits.timeoutMs);
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
