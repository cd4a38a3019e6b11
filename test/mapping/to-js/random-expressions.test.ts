import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileMappingSource, DEFAULT_LIMITS } from '../../../src/mapping/compile.ts';
import { outcome } from './engines.ts';

/*
 * Random expressions of the compiled subset on random documents: whatever the translator makes
 * of them, the result (or the error) is the interpreter's. Expressions the translator does not
 * take run interpreted, which is the interpreter's result too; the property also counts that
 * most do compile, or it would prove little.
 */

const LIMITS = { ...DEFAULT_LIMITS, timeoutMs: 10_000 };

const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(0, 1, -1, 2.5, 0.1, 1e21, '', 'a', 'b', 'x', true, false, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const name = fc.constantFrom('a', 'b', 'c');
const leaf = fc.constantFrom('a', 'b', 'c', '$', '$v', '1', '0', '""', 'true', 'null', 'a.b', 'c[]', '$v.a', '$v.b[0]');
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', 'c', '$', '$$', '$v', '1', '0', '"a"', '""', 'true', 'null', '[0, ""]', 'a.b', 'a.c.b', 'b[0]', 'a[-1]', 'c[]', '$v.a'),
    fc.tuple(tie('e'), name).map(([x, n]) => `(${x}).${n}`),
    fc.tuple(tie('e'), tie('e')).map(([x, p]) => `(${x})[${p}]`),
    fc.tuple(tie('e'), fc.integer({ min: -2, max: 2 })).map(([x, i]) => `(${x})[${i}]`),
    tie('e').map((x) => `(${x})[]`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `(${x}).(${y})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, t, f]) => `(${c}) ? (${t}) : (${f})`),
    fc.tuple(tie('e'), tie('e')).map(([c, t]) => `(${c}) ? (${t})`),
    fc.tuple(tie('e'), fc.constantFrom('and', 'or', '=', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '&', 'in'), tie('e')).map(
      ([x, op, y]) => `(${x}) ${op} (${y})`,
    ),
    tie('e').map((x) => `-(${x})`),
    fc.array(tie('e'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom('"k"', '"l"', '"1"'), tie('e')), tie('e')), { maxLength: 3 }).map(
      (ps) => `{ ${ps.map(([k, v]) => `${k}: ${v}`).join(', ')} }`,
    ),
    fc.tuple(fc.constantFrom('exists', 'count', 'string', 'merge', 'keys', 'floor', 'round', 'join'), tie('e')).map(([f, x]) => `$${f}(${x})`),
    fc.tuple(tie('e'), tie('e')).map(([x, k]) => `$lookup(${x}, ${k})`),
    fc.tuple(tie('e'), tie('e')).map(([x, s]) => `$join(${x}, ${s})`),
    fc.tuple(tie('e'), tie('e')).map(([x, p]) => `$round(${x}, ${p})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `($v := ${x}; ${y})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([body, arg, after]) => `($f := function($v) { ${body} }; $f(${arg}) ${after === '1' ? '' : '& ""'})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([body, x, y]) => `($f := function($v, $w) { ${body} }; (${x}).$f($, ${y}))`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `(${x}).{ "k": ${y}, $string($) & "s": 1 }`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$keys(${x}).($lookup(${y}, $))`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `[${x}, ${y}][$exists($)]`),
    // A := among a constructor's items, which the interpreter evaluates at the same time.
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `[$v := ${x}, ${y}]`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `{ "k": $v := ${x}, "l": ${y} }`),
    // A call at the end of a function's condition or block: JSONata's parser makes it a tail call.
    // (Its body from leaves: a function defined inside a function runs interpreted anyway.)
    fc.tuple(leaf, leaf, tie('e')).map(([c, x, arg]) => `($f := function($v) { (${c}) ? $string(${x}) }; $f(${arg}))`),
    fc.tuple(leaf, tie('e')).map(([x, arg]) => `($f := function($v) { ($w := ${x}; $keys($w)) }; $f(${arg}))`),
  ),
})).e;

describe('random expressions of the compiled subset', () => {
  it('give the interpreter\'s result or error, compiled', async () => {
    let compiled = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(expr, json, async (source, input) => {
        let interpreted;
        try {
          interpreted = compileMappingSource('t.jsonata', source, LIMITS, { compiler: false });
        } catch {
          return; // not valid JSONata: nothing to compare
        }
        const m = compileMappingSource('t.jsonata', source, LIMITS);
        // A := among a constructor's items runs interpreted on purpose: counted apart.
        if (!/\[\$v :=|"k": \$v :=/.test(source)) {
          runs++;
          if (m.engine === 'compiled') compiled++;
        }
        expect(await outcome(m, structuredClone(input)), source).toEqual(await outcome(interpreted, structuredClone(input)));
      }),
      { numRuns: Number(process.env.RUNS ?? 3000) },
    );
    expect(compiled / runs).toBeGreaterThan(0.9);
  }, 120_000);
});
