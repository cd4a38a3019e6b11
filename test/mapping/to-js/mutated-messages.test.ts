import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsBetween } from '../../../simulator/src/events.ts';
import { sample } from '../../../simulator/src/sample.ts';
import { allVehicles } from '../../simulator/fixtures.ts';
import { ADAPTERS_DIR, caseInput, engines, mappingOf, MAPPINGS_DIR, outcome } from './engines.ts';

/*
 * Raw messages as a broken or hostile manufacturer could send them: fields dropped, null, of
 * the wrong type, arrays for objects, strings for numbers, huge and infinite numbers, empty
 * arrays. Whatever the message, the compiled mapping gives what the interpreter gives: the
 * same output, or the same error (code and message, line suffix included).
 */

type Json = unknown;

/** Every place in a message: [] is the message itself, ['signals', 'motion'] a field... */
function places(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => places(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) places(x, [...at, k], out);
  return out;
}

const MUTATIONS: ((v: Json) => Json | typeof DROP)[] = [
  () => DROP,
  () => null,
  (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? Number(v.length) : 'text'),
  (v) => [v],
  (v) => [v, v],
  () => [],
  () => ({}),
  () => 1e308,
  () => JSON.parse('1e999'),
  () => -0,
  () => true,
  () => 'true',
  () => ['a', 1, null],
  (v) => (v !== null && typeof v === 'object' ? Object.values(v) : { value: v }),
];
const DROP = Symbol('drop');

function mutate(message: Json, edits: [number, number][]): Json {
  let root = structuredClone(message);
  for (const [where, how] of edits) {
    const all = places(root);
    const path = all[where % all.length]!;
    const parentPath = path.slice(0, -1);
    let parent: Json = root;
    for (const k of parentPath) parent = (parent as Record<string | number, Json>)[k];
    const current = path.length === 0 ? root : (parent as Record<string | number, Json>)[path[path.length - 1]!];
    const next = MUTATIONS[how % MUTATIONS.length]!(current);
    if (path.length === 0) root = next === DROP ? undefined : next;
    else if (next === DROP) {
      if (Array.isArray(parent)) parent.splice(path[path.length - 1] as number, 1);
      else delete (parent as Record<string, Json>)[path[path.length - 1] as string];
    } else (parent as Record<string | number, Json>)[path[path.length - 1]!] = next;
  }
  return root;
}

const DAY = Date.parse('2026-11-25T00:00:00Z');
const vehicles = allVehicles();

/** Real messages of each mapping: simulated ones for virtual, the cases and fixtures for all. */
function baseMessages(): Map<string, Json[]> {
  const out = new Map<string, Json[]>();
  const add = (file: string | undefined, m: Json) => file && m !== undefined && out.set(file, [...(out.get(file) ?? []), m]);
  for (const v of vehicles) {
    add(mappingOf('virtual', 'telemetry'), JSON.parse(JSON.stringify(sample(v, DAY + 9 * 3_600_000))));
    for (const e of eventsBetween(v, DAY - 1, DAY + 86_400_000 - 1).slice(0, 2)) add(mappingOf('virtual', 'event'), JSON.parse(JSON.stringify(e)));
  }
  for (const m of readdirSync(MAPPINGS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of readdirSync(join(MAPPINGS_DIR, m.name, 'cases'))) {
      const c = JSON.parse(readFileSync(join(MAPPINGS_DIR, m.name, 'cases', f), 'utf8'));
      add(mappingOf(m.name, c.messageType), caseInput(m.name, c));
    }
    for (const f of readdirSync(join(ADAPTERS_DIR, m.name, 'fixtures'))) {
      add(mappingOf(m.name, f.split('.')[1]!), JSON.parse(readFileSync(join(ADAPTERS_DIR, m.name, 'fixtures', f), 'utf8')));
    }
  }
  return out;
}

describe.each([...baseMessages()].map(([file, messages]) => [file.slice(MAPPINGS_DIR.length + 1), file, messages] as const))(
  '%s on mutated messages',
  (_name, file, messages) => {
    const e = engines(file, readFileSync(file, 'utf8'));
    it('compiled ≡ interpreter', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(messages.length - 1),
          fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 4 }),
          async (which, edits) => {
            const input = mutate(messages[which], edits);
            expect(await outcome(e.compiled, input)).toEqual(await outcome(e.interpreted, input));
          },
        ),
        { numRuns: Number(process.env.RUNS ?? 400) },
      );
    }, 120_000);
  },
);
