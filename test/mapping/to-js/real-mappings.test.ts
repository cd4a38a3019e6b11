import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsBetween } from '../../../simulator/src/events.ts';
import { sample } from '../../../simulator/src/sample.ts';
import { allVehicles } from '../../simulator/fixtures.ts';
import jsonata from 'jsonata';
import { compileMappingSource, DEFAULT_LIMITS } from '../../../src/mapping/compile.ts';
import { depthBound } from '../../../src/mapping/to-js/analysis.ts';
import type { AstNode } from '../../../src/mapping/to-js/ast.ts';
import { BINDINGS, caseInput, engines, mappingFiles, mappingOf, MAPPINGS_DIR, outcome, type Engines } from './engines.ts';

/*
 * The compiled mappings against the interpreter on real inputs: every case of every mapping,
 * every adapter fixture, and a day of every virtual vehicle's simulated messages. Same output
 * (or the same error), and the compiled code handles them itself (no bail-out).
 */

const byFile = new Map(mappingFiles().map((m) => [m.file, { ...m, engines: engines(m.file, m.source) }]));

async function expectSame(e: Engines, input: unknown, label: string, bindings = BINDINGS): Promise<void> {
  const [compiled, interpreted] = [await outcome(e.compiled, input, bindings), await outcome(e.interpreted, input, bindings)];
  expect(compiled, label).toEqual(interpreted);
}

describe('every mapping file', () => {
  it.each([...byFile.values()].map((m) => [`${m.manufacturer}/${m.name}`, m] as const))('%s runs compiled', (_n, m) => {
    expect(m.engines.compiled.engine).toBe('compiled');
    expect(m.engines.compiled.interpretedBecause).toBeUndefined();
  });
});

const cases = readdirSync(MAPPINGS_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(MAPPINGS_DIR, d.name, 'cases'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => [`${d.name}/cases/${f}`, d.name, JSON.parse(readFileSync(join(MAPPINGS_DIR, d.name, 'cases', f), 'utf8'))] as const),
  );

describe('every mapping case', () => {
  it.each(cases)('%s: compiled output equals the interpreter\'s', async (name, manufacturer, c) => {
    const file = mappingOf(manufacturer, c.messageType);
    if (!file) return; // an unknown message type has no mapping to compare (the case expects that failure)
    const input = caseInput(manufacturer, c);
    const bindings = { receivedAt: c.receivedAt ?? '2026-11-25T12:00:00.000Z', messageType: c.messageType };
    await expectSame(byFile.get(file)!.engines, input, name, bindings);
  });
});

describe('every adapter fixture', () => {
  const adapters = join(MAPPINGS_DIR, '..', 'adapters');
  const fixtures = readdirSync(adapters).flatMap((a) =>
    readdirSync(join(adapters, a, 'fixtures')).map((f) => [`${a}/${f}`, a, f] as const),
  );
  it.each(fixtures)('%s runs compiled, with the interpreter\'s output', async (_n, adapter, f) => {
    const type = f.split('.')[1]!;
    const e = byFile.get(mappingOf(adapter, type)!)!.engines;
    const input = JSON.parse(readFileSync(join(adapters, adapter, 'fixtures', f), 'utf8'));
    await expectSame(e, input, f);
    expect(() => e.run(input, { ...BINDINGS })).not.toThrow();
  });
});

describe('MAPPING_MAX_DEPTH means the same in both engines', () => {
  // JSONata's count for virtual/telemetry.jsonata reaches 135 on its cases: with a limit of 31
  // to 134 the compiled code once stored what the interpreter quarantined (D1011).
  const files = [...byFile.values()];
  it.each(files.map((m) => [`${m.manufacturer}/${m.name}`, m] as const))('%s: every case alike at every limit', async (_n, m) => {
    const inputs = cases
      .filter(([, manufacturer, c]) => manufacturer === m.manufacturer && mappingOf(manufacturer, c.messageType) === m.file)
      .map(([, manufacturer, c]) => caseInput(manufacturer, c))
      .filter((i) => i !== undefined);
    const bound = depthBound(jsonata(m.source).ast() as AstNode);
    for (const maxDepth of [16, 31, 66, 100, 134, 135, 200, bound - 1, bound]) {
      const limits = { ...DEFAULT_LIMITS, timeoutMs: 10_000, maxDepth };
      const compiled = compileMappingSource(m.file, m.source, limits);
      const interpreted = compileMappingSource(m.file, m.source, limits, { compiler: false });
      expect(compiled.engine, `limit ${maxDepth}, bound ${bound}`).toBe(maxDepth >= bound ? 'compiled' : 'interpreted');
      for (const input of inputs) {
        expect(await outcome(compiled, structuredClone(input)), `limit ${maxDepth}`).toEqual(await outcome(interpreted, structuredClone(input)));
      }
    }
  });

  it('the bound is above what each mapping needs, and within the default limit', async () => {
    for (const m of files) {
      const bound = depthBound(jsonata(m.source).ast() as AstNode);
      expect(bound, m.name).toBeLessThanOrEqual(DEFAULT_LIMITS.maxDepth);
      const inputs = cases
        .filter(([, manufacturer, c]) => manufacturer === m.manufacturer && mappingOf(manufacturer, c.messageType) === m.file)
        .map(([, manufacturer, c]) => caseInput(manufacturer, c));
      const atBound = compileMappingSource(m.file, m.source, { ...DEFAULT_LIMITS, timeoutMs: 10_000, maxDepth: bound }, { compiler: false });
      for (const input of inputs) expect(await outcome(atBound, structuredClone(input))).not.toMatchObject({ error: { code: 'D1011' } });
    }
  });
});

const DAY = Date.parse('2026-11-25T00:00:00Z');

describe.each(allVehicles().map((v) => [v.vin, v] as const))('a day of %s', (_vin, v) => {
  it('maps every telemetry sample and event alike in both engines, all compiled', async () => {
    const telemetry = byFile.get(mappingOf('virtual', 'telemetry')!)!.engines;
    const event = byFile.get(mappingOf('virtual', 'event')!)!.engines;
    const messages = [
      ...Array.from({ length: 72 }, (_, i) => ({ e: telemetry, body: sample(v, DAY + i * 20 * 60_000) as unknown })),
      ...eventsBetween(v, DAY - 1, DAY + 86_400_000 - 1).map((body) => ({ e: event, body: body as unknown })),
    ];
    for (const { e, body } of messages) {
      const input = JSON.parse(JSON.stringify(body));
      await expectSame(e, input, JSON.stringify(body).slice(0, 200));
      expect(() => e.run(input, { ...BINDINGS })).not.toThrow();
    }
  });
});
