/**
 * The two engines side by side for the differential tests: every mapping compiled to
 * JavaScript and interpreted by JSONata, and what each makes of an input (its output in a form
 * that keeps key order, array-ness, undefined and -0 visible, or its error code and message).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileMappingSource, DEFAULT_LIMITS, type CompiledMapping, type MappingBindings, type MappingLimits } from '../../../src/mapping/compile.ts';
import { translateMapping, type CompiledRun } from '../../../src/mapping/to-js/compile-to-js.ts';
import jsonata from 'jsonata';

export const MAPPINGS_DIR = join(import.meta.dirname, '..', '..', '..', 'mappings');
export const ADAPTERS_DIR = join(import.meta.dirname, '..', '..', '..', 'adapters');
export const BINDINGS: MappingBindings = { receivedAt: '2026-11-25T12:00:00.000Z', messageType: 'telemetry' };

export interface MappingFile {
  manufacturer: string;
  name: string;
  file: string;
  source: string;
}

export function mappingFiles(): MappingFile[] {
  const out: MappingFile[] = [];
  for (const m of readdirSync(MAPPINGS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const name of readdirSync(join(MAPPINGS_DIR, m.name)).filter((f) => f.endsWith('.jsonata')).sort()) {
      const file = join(MAPPINGS_DIR, m.name, name);
      out.push({ manufacturer: m.name, name, file, source: readFileSync(file, 'utf8') });
    }
  }
  return out;
}

export interface Engines {
  interpreted: CompiledMapping;
  compiled: CompiledMapping;
  /** The bare compiled function: throws its bail-out instead of handing over to the interpreter. */
  run: CompiledRun;
}

export function engines(file: string, source: string, limits: MappingLimits = { ...DEFAULT_LIMITS, timeoutMs: 10_000 }): Engines {
  const translation = translateMapping(jsonata(source).ast(), limits);
  if (!translation.ok) throw new Error(`${file} does not translate: ${translation.reason}`);
  return {
    interpreted: compileMappingSource(file, source, limits, { compiler: false }),
    compiled: compileMappingSource(file, source, limits, { compiler: true }),
    run: translation.run,
  };
}

/** A value in a form `toEqual` compares strictly: key order, arrays, undefined, -0 and NaN included. */
export function canonical(v: unknown): unknown {
  if (v === undefined) return { undefined: true };
  if (typeof v === 'number') return Object.is(v, -0) ? { number: '-0' } : Number.isNaN(v) ? { number: 'NaN' } : v;
  if (typeof v === 'function') return { function: true };
  if (Array.isArray(v)) return { array: v.map(canonical) };
  if (v !== null && typeof v === 'object') return { object: Object.keys(v).map((k) => [k, canonical((v as Record<string, unknown>)[k])]) };
  return v;
}

export type Outcome = { value: unknown } | { error: { code: unknown; message: unknown } };

export async function outcome(mapping: CompiledMapping, input: unknown, bindings: MappingBindings = BINDINGS): Promise<Outcome> {
  try {
    return { value: canonical(await mapping.evaluate(input, bindings)) };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    return { error: { code: e.code, message: e.message } };
  }
}

/** A mapping case's input as the pipeline would decode it (cases with undecodable text give none). */
export function caseInput(manufacturer: string, c: { input?: unknown; fixture?: string; raw?: string }): unknown {
  if (c.input !== undefined) return c.input;
  if (c.fixture) return JSON.parse(readFileSync(join(ADAPTERS_DIR, manufacturer, 'fixtures', c.fixture), 'utf8'));
  try {
    return JSON.parse(c.raw ?? '');
  } catch {
    return undefined;
  }
}

/** The mapping file of a message type, from the adapter's manifest. */
export function mappingOf(manufacturer: string, messageType: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(ADAPTERS_DIR, manufacturer, 'manifest.json'), 'utf8')) as {
    messageTypes: Record<string, { mapping: string }>;
  };
  const m = manifest.messageTypes[messageType]?.mapping;
  return m && join(MAPPINGS_DIR, manufacturer, m);
}
