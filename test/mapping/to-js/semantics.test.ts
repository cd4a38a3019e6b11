import jsonata from 'jsonata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMappingSource, DEFAULT_LIMITS, INSTALLED_JSONATA, PORTED_JSONATA, type MappingLimits } from '../../../src/mapping/compile.ts';
import { Bail } from '../../../src/mapping/to-js/bail.ts';
import { translateMapping } from '../../../src/mapping/to-js/compile-to-js.ts';
import { BINDINGS, canonical, outcome } from './engines.ts';

/*
 * JSONata's tricky semantics on small expressions: the compiled function itself (no bail-out)
 * must give exactly what the interpreter gives; where the compiled code cannot model a case, it
 * bails out and the mapping's result (or error) is the interpreter's.
 */

const LIMITS: MappingLimits = { ...DEFAULT_LIMITS, timeoutMs: 10_000 };

async function interpreted(expr: string, input: unknown, limits = LIMITS) {
  return outcome(compileMappingSource('t.jsonata', expr, limits, { compiler: false }), input);
}

/** The compiled function runs the case itself, and its result is the interpreter's. */
async function expectCompiled(expr: string, input: unknown): Promise<void> {
  const t = translateMapping(jsonata(expr).ast(), LIMITS);
  if (!t.ok) throw new Error(`${expr} does not translate: ${t.reason}`);
  const value = t.run(structuredClone(input), { ...BINDINGS });
  expect({ value: canonical(value) }, `${expr} on ${JSON.stringify(input)}`).toEqual(await interpreted(expr, structuredClone(input)));
}

/** The compiled function bails out, and the mapping answers what the interpreter answers. */
async function expectBailOut(expr: string, input: unknown, limits = LIMITS): Promise<void> {
  const t = translateMapping(jsonata(expr).ast(), limits);
  if (!t.ok) throw new Error(`${expr} does not translate: ${t.reason}`);
  expect(() => t.run(structuredClone(input), { ...BINDINGS }), expr).toThrow(Bail);
  const compiled = compileMappingSource('t.jsonata', expr, limits);
  expect(compiled.engine).toBe('compiled');
  expect(await outcome(compiled, structuredClone(input))).toEqual(await interpreted(expr, structuredClone(input), limits));
}

const doc = {
  a: [{ b: 1, c: 'x' }, { b: [2, 3] }, { b: { d: 4 } }, { c: 'y' }],
  o: { p: { q: 'deep' }, n: 0, e: '', z: null, t: true, f: false, arr: [], one: [5], obj: {} },
  nums: [3, 1, 2],
  strs: ['s', 't'],
  nested: [[1, 2], [3]],
  s: 'text',
};

describe('objects built', () => {
  const run = (expr: string) => {
    const t = translateMapping(jsonata(expr).ast(), LIMITS);
    if (!t.ok) throw new Error(`${expr} does not translate: ${t.reason}`);
    return t.run(structuredClone(doc), { ...BINDINGS }) as object;
  };

  it('are ordinary objects where every key is written out, and a "__proto__" key stays a key', async () => {
    // What the pipeline keeps without copying it (src/pipeline/harmonize.ts toPlainJson).
    expect(Object.getPrototypeOf(run('{ "a": 1, "b": s, "c": o.p }'))).toBe(Object.prototype);
    for (const expr of ['{ "__proto__": o.p, "a": 1 }', '{ s: 1 }']) {
      const built = run(expr);
      expect(Object.getPrototypeOf(built), expr).toBe(null);
      await expectCompiled(expr, doc);
    }
    expect(Object.keys(run('{ "__proto__": o.p, "a": 1 }'))).toEqual(['__proto__', 'a']);
  });
});

describe('paths and sequences', () => {
  it.each([
    'a.b', 'a.c', 'a.b.d', 'a[0].b', 'a[-1].c', 'a.b[0]', 'a[1].b[1]', 'nested', 'nested[0]', 'nested.$', 'a.b[]', 'o.p.q[]',
    'o.missing', 'o.missing[]', 'o.one', 'o.one[0]', 'o.arr', 'o.arr[]', 'nums[$ > 1]', 'a[b = 1].c', 'a[$exists(c)].c', 'a[c = "y"]', 'nums[[0, 2]]',
    '$.o.p', '$$.s', 's', 'a.(b)', 'a.{ "v": b }', 'a.{ "v": b }[0]', '[a.c]', '[a.c][1]', '[o.missing]', 'a[0]', 'a.b.$',
  ])('%s', (expr) => expectCompiled(expr, doc));

  it('treats a JSON array as one input ($ is the array, paths map over it)', async () => {
    for (const expr of ['$', 'b', '$.b', '$$', '$[0]', 'b[]']) await expectCompiled(expr, [{ b: 1 }, { b: 2 }]);
  });
});

describe('constructors', () => {
  it.each([
    '{ "x": o.missing, "y": o.n, "z": o.z }', '{ "1": 1, "b": 2, "0": 3 }', '[o.missing, o.n, [o.missing], [a.c], nums]',
    '[]', '{}', '{ s: 1 }', '{ o.p.q: o.t }', '{ (a.c)[0]: 1, "k": 2 }', '[nums, strs][0]', '{ "v": [nums] }', '[[1, 2], 3]',
  ])('%s', (expr) => expectCompiled(expr, doc));
});

describe('truthiness of ?:, and, or', () => {
  const values = ['o.n', 'o.e', 'o.z', 'o.t', 'o.f', 'o.arr', 'o.one', 'o.obj', 'o.p', 'o.missing', 'nums', 's', '[0, 0]', '[0, 1]', '[[]]'];
  it.each(values)('%s', async (v) => {
    await expectCompiled(`${v} ? "yes" : "no"`, doc);
    await expectCompiled(`${v} ? "yes"`, doc);
    await expectCompiled(`${v} and o.t`, doc);
    await expectCompiled(`${v} or o.f`, doc);
  });
});

describe('operators', () => {
  it.each([
    'o.n + 1', 'nums[0] * 2 - 1 / 4', '7 % 3', 'o.missing + 1', '-nums[0]', '-o.missing',
    'o.p = { "q": "deep" }', 'nums = [3, 1, 2]', 'o.missing = o.missing', 'o.missing != 1', 's != "text"',
    '"a" < "b"', 'nums[0] >= 3', 'o.missing < 1', '"s" in strs', '"u" in strs', 's in "text"', 'o.missing in strs',
    's & 1', '0.1 + 0.2 & ""', 'o.p & ""', 'nums & strs', 'o.t & o.z', 'o.missing & "x"', '1e21 & ""', '100 & ""',
  ])('%s', (expr) => expectCompiled(expr, doc));
});

describe('built-in functions and our helpers', () => {
  it.each([
    '$string(o.p)', '$string(0.1 + 0.2)', '$string(1e21)', '$string(o.z)', '$string(o.t)', '$string(s)', '$string(o.missing)', '$string(nums)',
    '$merge([o.p, o.obj, { "k": 1 }])', '$merge(o.missing)', '$merge(o.p)', '$merge([])',
    '$exists(o.missing)', '$exists(o.z)', '$floor(-1.5)', '$floor(o.missing)',
    '$round(2.5)', '$round(3.5)', '$round(-0.4)', '$round(1.005, 2)', '$round(1234.5678, -2)', '$round(o.missing)',
    '$count(nums)', '$count(s)', '$count(o.missing)', '$count(a.b)', '$join(strs, ", ")', '$join(s)', '$join(o.missing, ",")', '$join(o.arr)',
    '$keys(o.p)', '$keys(a)', '$keys(s)', '$lookup(a, "c")', '$lookup(o, "p")', '$lookup(o.missing, "p")',
    '$isoTime(1764030600)', '$isoTime("2026-11-25T03:30:00+01:00")', '$isoTime("2026-11-25T03:30:00")', '$isoTime(o.missing)',
    '$roundTo($speed(62, "mph", "km/h"), 1)', '$distance(o.missing, "mi", "km")', '$temperature(50, "F", "C")', '$percentage(0.57, "ratio")',
    '$snapshots([{ "path": "A", "value": 1, "ts": 1764030600 }])',
  ])('%s', (expr) => expectCompiled(expr, doc));
});

describe('blocks, variables and the mapping\'s functions', () => {
  it.each([
    '( $x := nums[0]; $y := $x * 2; [$x, $y] )',
    '( $x := 1; ( $x := 2 ); $x )',
    '( $f := function($v) { $v ? "on" : "off" }; [$f(o.t), $f(o.f), $f(o.missing)] )',
    '( $f := function($v, $w) { [$v, $w] }; $f(1) )',
    '( $f := function($v) { $lookup(o, $v) }; $f("p") )',
    '( $k := "c"; $f := function($v) { $lookup($v, $k) }; a.$f($) )',
    '( $f := function($v) { $v }; $f(1, 2) )',
    '( $ctx := o; $f := function() { p.q }; $f() )',
    '( $f := function($f) { $f }; $f(3) )',
    '( $string := function($v) { "mine" }; $string(1) )',
    '$receivedAt & "/" & $messageType & $topic',
  ])('%s', (expr) => expectCompiled(expr, doc));
});

describe('cases handed to the interpreter, with its result or error', () => {
  it.each([
    ['s + 1', doc],
    ['-s', doc],
    ['nums < s', doc],
    ['o.p < 1', doc],
    ['$floor("1")', doc],
    ['$join(nums)', doc],
    ['$merge([o.p, 1])', doc],
    ['$isoTime(o.p)', doc],
    ['$speed("1", "mph", "km/h")', doc],
    ['$error("stop")', doc],
    ['{ s: 1, "text": 2 }', doc],
    ['{ o.n: 1 }', doc],
    ['nested.{ "x": $ }', doc],
    ['{ "x": 1 }', [1, 2]],
    ['$string(inf)', { inf: Infinity }],
    ['inf + 1', { inf: Infinity }],
    ['inf ? 1 : 2', { inf: -Infinity }],
    ['{ (a.c): 1 }', doc],
    ['( $f := function($v) { $g($v) }; $g := function($v) { $v }; $f(1) )', doc],
    ['( $f := function($v) { $v }; $f )', doc],
    ['( $x := 1; $x() )', doc],
    ['( $f := function($v) { $v }; $f(o) )', { o: { _jsonata_lambda: true } }],
    ['$count(o)', { o: { _jsonata_function: true } }],
  ] as const)('%s', (expr, input) => expectBailOut(expr, input));
});

describe('the limits keep their meaning', () => {
  it('a recursive function is handed to the interpreter, which stops it (MAPPING_MAX_DEPTH)', async () => {
    const expr = '( $f := function($n) { $n > 0 ? 1 + $f($n - 1) : 0 }; $f(n) )';
    await expectBailOut(expr, { n: 3 });
    const deep = await outcome(compileMappingSource('t.jsonata', expr, LIMITS), { n: 10_000 });
    expect(deep).toEqual(await interpreted(expr, { n: 10_000 }));
    expect(deep).toMatchObject({ error: { code: 'D1011' } });
  });

  it('a sequence longer than maxSequence is handed to the interpreter, which raises D2015', async () => {
    const limits = { ...LIMITS, maxSequence: 10 };
    const input = { a: Array.from({ length: 20 }, (_, i) => ({ b: i })) };
    await expectBailOut('a.b', input, limits);
    expect(await outcome(compileMappingSource('t.jsonata', 'a.b', limits), input)).toMatchObject({ error: { code: 'D2015' } });
  });

  it('a compiled run stops at MAPPING_TIMEOUT_MS with JSONata\'s timeout error, however long its loops would take', async () => {
    // Four nested paths over 400 items: 400⁴ steps, minutes of work (43 s once, checked only after the run).
    const expr = '$count(a.($count($$.a.($count($$.a.($count($$.a)))))))';
    const limits = { ...LIMITS, timeoutMs: 200 };
    const m = compileMappingSource('t.jsonata', expr, limits);
    expect(m.engine).toBe('compiled');
    const started = performance.now();
    expect(await outcome(m, { a: Array.from({ length: 400 }, (_, i) => i) })).toMatchObject({ error: { code: 'D1012' } });
    // Bounded by the limit (plus the slack of a loaded machine), not by the work.
    expect(performance.now() - started).toBeLessThan(200 + 1500);
  });

  it('a mapping nested deeper than MAPPING_MAX_DEPTH allows runs interpreted, and says why', () => {
    const m = compileMappingSource('t.jsonata', '{ "a": { "b": { "c": [1, [2, [3]]] } } }', { ...LIMITS, maxDepth: 6 });
    expect(m.engine).toBe('interpreted');
    expect(m.interpretedBecause).toMatch(/MAPPING_MAX_DEPTH \(6\)/);
  });
});

describe('a := among the items of a constructor', () => {
  // The interpreter evaluates the items at the same time, so the second item does not see the
  // first's binding; in-order code would (it once gave [5, 5] where JSONata gives [5]).
  it.each([
    ['[$x := a, $x]', { a: 5 }],
    ['{ "k": $x := a, "l": $x }', { a: 5 }],
    ['[[$x := a], $x]', { a: 5 }],
    ['[$f($x := a), $x]', { a: 5 }],
    ['( $y := [$x := a, $x]; [$x, $y] )', { a: 5 }],
  ] as const)('%s runs interpreted, with the interpreter\'s result', async (expr, input) => {
    const m = compileMappingSource('t.jsonata', expr, LIMITS);
    expect(m.engine).toBe('interpreted');
    expect(m.interpretedBecause).toMatch(/:= inside an array or object constructor/);
    expect(await outcome(m, input)).toEqual(await interpreted(expr, input));
  });

  it.each(['[($x := a), $x]', '{ "k": ($x := a; $x + 1), "l": $x }', '( $x := a; [$x, $x] )'])(
    '%s (the binding in parentheses, or before the constructor) compiles',
    (expr) => expectCompiled(expr, { a: 5 }),
  );
});

describe('a call at the end of a function, which JSONata rewrites as a tail call', () => {
  it.each([
    '( $f := function($v) { $v ? $isoTime($v) }; [$f(t), $f(missing)] )',
    '( $f := function($v) { $v ? $isoTime($v) : $string($v) }; [$f(t), $f(0)] )',
    '( $f := function($v) { ( $w := $v * 1000; $isoTime($w) ) }; $f(t) )',
    '( $f := function($v) { $v ? ( $w := $v; $exists($w) ? $isoTime($w) ) }; $f(t) )',
    '( $f := function($v) { $v ? $keys($v) }; [$f(o), $f(missing)] )',
    '( $f := function($v) { $v ? $lookup(o, $v) }; $f("p") )',
  ])('%s compiles, with the interpreter\'s result', async (expr) => {
    const input = { t: 1764030600, o: { p: [1], q: 2 } };
    expect(compileMappingSource('t.jsonata', expr, LIMITS).engine).toBe('compiled');
    await expectCompiled(expr, input);
  });

  it('under a filter of its condition, runs interpreted and says so (not that it is a :=)', async () => {
    const expr = '( $f := function($v) { ($v ? $keys($v))[0] }; $f(o) )';
    const m = compileMappingSource('t.jsonata', expr, LIMITS);
    expect(m.engine).toBe('interpreted');
    expect(m.interpretedBecause).toMatch(/tail call/);
    expect(await outcome(m, { o: { p: 1 } })).toEqual(await interpreted(expr, { o: { p: 1 } }));
  });
});

describe('the jsonata version the compiled code is a port of', () => {
  it('is the one package.json pins exactly, and the one installed', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.jsonata).toBe(PORTED_JSONATA);
    expect(INSTALLED_JSONATA).toBe(PORTED_JSONATA);
  });

  it('another one installed: every mapping runs interpreted, and says why', () => {
    const m = compileMappingSource('t.jsonata', 's', LIMITS, { compiler: true, jsonataVersion: '2.3.0' });
    expect(m).toMatchObject({ engine: 'interpreted', interpretedBecause: expect.stringMatching(/jsonata 2\.3\.0 is installed.*port of jsonata 2\.2\.2/) });
  });
});

describe('what runs interpreted', () => {
  it.each([
    ['[1..3]', /operator \.\./],
    ['$map(nums, function($v) { $v * 2 })', /\$map|function that is not bound/],
    ['$sort(nums)', /\$sort/],
    ['nums^($)', /sort/],
    ['s ~> $uppercase()', /apply/],
    ['**.q', /descendant/],
    ['a.%.s', /parent|ancestor/],
    ['$contains(s, /x/)', /contains|regex/],
    ['$now()', /\$now/],
    ['$string', /\$string used as a value/],
    ['[function($x) { $x }]', /function that is not bound/],
    ['( $f := function($x)<n:n> { $x }; $f(1) )', /signature/],
    ['a#$i.c', /index|tuple/],
    ['a@$x.c', /focus|tuple/],
    ['$string(1, true)', /\$string with 2 arguments/],
  ] as const)('%s', (expr, reason) => {
    const m = compileMappingSource('t.jsonata', expr, LIMITS);
    expect(m.engine).toBe('interpreted');
    expect(m.interpretedBecause).toMatch(reason);
  });

  it('a syntax tree the translator does not expect: the mapping still loads, interpreted', () => {
    const t = translateMapping({ type: 'block', expressions: [{ type: 'path' }] }, LIMITS);
    expect(t).toMatchObject({ ok: false, reason: expect.stringMatching(/^it uses an empty path|^the translator failed/) });
    expect(translateMapping({ type: 'unary', value: '{', lhs: [[null, null]] }, LIMITS)).toMatchObject({ ok: false, reason: expect.stringMatching(/^the translator failed/) });
  });

  it('everywhere when MAPPING_COMPILER is off', () => {
    const m = compileMappingSource('t.jsonata', 's', LIMITS, { compiler: false });
    expect(m).toMatchObject({ engine: 'interpreted', interpretedBecause: 'MAPPING_COMPILER is off' });
  });
});
