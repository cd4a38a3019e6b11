import { Ajv } from 'ajv';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Adapter } from '../adapters/manifest.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';
import { formatAjvError } from '../catalog/ajv.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { analyse, toDataPoints } from '../pipeline/harmonize.ts';
import { rawMessage } from '../domain/raw-message.ts';
import { QUARANTINE_CODES, type QuarantineCode } from '../store/contract/quarantine.ts';
import { fieldDiff } from './diff.ts';
import { explainFailure, parsedJson } from './explain.ts';

/**
 * One mapping case, `mappings/<manufacturer>/cases/<name>.json`: a raw message and what it must
 * become. The input is given as JSON (`input`), as a fixture of the adapter (`fixture`, a file
 * in adapters/<manufacturer>/fixtures/), or as raw text (`raw`, for broken messages).
 */
export interface MappingCase {
  description?: string;
  messageType: string;
  /** When the message was received; event items take it as `receivedAt`. Default below. */
  receivedAt?: string;
  input?: unknown;
  fixture?: string;
  raw?: string;
  /** Either the exact harmonized items (any order), or the failure code and part of its reason. */
  expect: { items: { vin: string; item: string; payload: Record<string, unknown> }[] } | { error: QuarantineCode; reasonContains?: string };
}

export const DEFAULT_RECEIVED_AT = '2026-11-25T12:00:00.000Z';

export interface CaseResult {
  manufacturer: string;
  /** Path relative to the mappings folder, e.g. virtual/cases/telemetry-electric.json */
  name: string;
  problems: string[];
}

/** Every case file of every manufacturer: [manufacturer, absolute path]. */
export async function listCaseFiles(mappingsDir: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const m of (await readdir(mappingsDir, { withFileTypes: true })).filter((d) => d.isDirectory())) {
    const dir = join(mappingsDir, m.name, 'cases');
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const f of files.filter((f) => f.endsWith('.json')).sort()) out.push([m.name, join(dir, f)]);
  }
  return out;
}

type ExpectedItem = { vin: string; item: string; payload: Record<string, unknown> };

const expectedItem = {
  type: 'object',
  additionalProperties: false,
  required: ['vin', 'item', 'payload'],
  properties: { vin: { type: 'string' }, item: { type: 'string' }, payload: { type: 'object' } },
};

/** The shape of a case file, so a malformed one is a problem of that file, not a TypeError. */
const caseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['messageType', 'expect'],
  properties: {
    $schema: { type: 'string' },
    description: { type: 'string' },
    messageType: { type: 'string', minLength: 1 },
    receivedAt: { type: 'string', minLength: 1 },
    input: {},
    fixture: { type: 'string', minLength: 1 },
    raw: { type: 'string' },
    expect: {
      type: 'object',
      // Checked against the one form it means: `error` present is an expected failure.
      if: { type: 'object', required: ['error'], properties: { error: true } },
      then: {
        type: 'object',
        additionalProperties: false,
        properties: { error: { enum: [...QUARANTINE_CODES] }, reasonContains: { type: 'string' } },
      },
      else: {
        type: 'object',
        additionalProperties: false,
        required: ['items'],
        // No items is a failure of the mapping (OUTPUT_INVALID): expect that error instead.
        properties: { items: { type: 'array', minItems: 1, items: expectedItem } },
      },
    },
  },
};
const validateCase = new Ajv({ allErrors: true, strict: true }).compile<MappingCase>(caseSchema);

/** Why a parsed case file is not a case, one line per problem (`if` only says which form failed). */
function caseShapeProblems(c: unknown): string[] {
  if (validateCase(c)) return [];
  return [...new Set((validateCase.errors ?? []).filter((e) => e.keyword !== 'if').map(formatAjvError))];
}

/** Runs one case file; an empty `problems` list means it passed. */
export async function runCase(registry: AdapterRegistry, catalog: Catalog, manufacturer: string, file: string, mappingsDir: string): Promise<CaseResult> {
  const name = file.slice(mappingsDir.length + 1);
  const problems: string[] = [];
  const adapter = registry.get(manufacturer);
  if (!adapter) return { manufacturer, name, problems: [`no adapter "${manufacturer}" (adapters/${manufacturer}/manifest.json)`] };
  let c: unknown;
  try {
    c = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    return { manufacturer, name, problems: [`${name} is not valid JSON: ${(err as Error).message}`] };
  }
  const shape = caseShapeProblems(c);
  if (shape.length > 0) return { manufacturer, name, problems: [`${name} is not a mapping case: ${shape.join('; ')}`] };
  const kase = c as MappingCase;
  const body = await caseBody(adapter, kase).catch((err: Error) => {
    problems.push(err.message);
    return undefined;
  });
  if (body === undefined) return { manufacturer, name, problems };
  const msg = rawMessage({ manufacturer, messageType: kase.messageType, receivedAt: kase.receivedAt ?? DEFAULT_RECEIVED_AT }, body);
  const analysis = await analyse(adapter, catalog, msg);
  // Where an unexpected failure comes from: the catalog item, the mapping's line, the raw field.
  const explain = async () => {
    const input = parsedJson(body);
    if (input === undefined) return [];
    return (await explainFailure(adapter, input, { receivedAt: msg.receivedAt, messageType: msg.messageType }, analysis)).map((l) => `  ${l}`);
  };

  if ('error' in kase.expect) {
    const expected = kase.expect;
    if (!analysis.failure) problems.push(`expected error ${expected.error}, but the message mapped to ${analysis.candidates.length} valid items`);
    else if (analysis.failure.code !== expected.error) problems.push(`expected error ${expected.error}, got ${analysis.failure.code}: ${analysis.failure.reason}`, ...(await explain()));
    else if (expected.reasonContains && !analysis.failure.reason.includes(expected.reasonContains)) {
      problems.push(`error reason "${analysis.failure.reason}" does not contain "${expected.reasonContains}"`);
    }
    return { manufacturer, name, problems };
  }

  // The expected output must itself be catalog-valid: a case cannot bless an invalid payload.
  for (const e of kase.expect.items) {
    const v = catalog.validate(e.item, e.payload);
    if (!v.valid) problems.push(`expected ${e.item} is not valid against the catalog: ${v.errors.join('; ')}`);
  }
  // A failed message has no items: the failure is the problem, not each item it lacks.
  if (analysis.failure) {
    problems.push(`mapping failed: ${analysis.failure.code}: ${analysis.failure.reason}`, ...(await explain()));
    return { manufacturer, name, problems };
  }
  // Keyed as the store keys data points (VIN, item, time in ms), so two items the store would
  // take as one (it keeps the first: ON CONFLICT DO NOTHING) cannot hide in the comparison.
  const storeKey = (items: ExpectedItem[]) =>
    toDataPoints(adapter, { mappingVersion: null, vin: null, candidates: items.map((i) => ({ ...i, errors: [] })) }, msg).map(
      (p) => `${p.vin}|${p.item}|${p.timestampMs}`,
    );
  const actual = byKey(analysis.candidates, storeKey(analysis.candidates), 'the mapping produces', 'the store keeps only the first', problems);
  const expected = byKey(kase.expect.items, storeKey(kase.expect.items), 'the case expects', 'list each item once', problems);
  for (const [k, e] of expected) {
    const a = actual.get(k);
    if (!a) problems.push(`missing ${e.item} for ${e.vin}`);
    else for (const d of fieldDiff(e.payload, a.payload)) problems.push(`${e.item} of ${e.vin} at ${when(e)} ${d}`);
  }
  for (const [k, a] of actual) if (!expected.has(k)) problems.push(`unexpected ${a.item} for ${a.vin}: ${JSON.stringify(a.payload)}`);
  return { manufacturer, name, problems };
}

/** Items by store key, the first of each key kept (as the store does); a repeated key is a problem. */
function byKey<T extends ExpectedItem>(items: T[], keys: string[], side: string, advice: string, problems: string[]): Map<string, T> {
  const out = new Map<string, T>();
  const counts = new Map<string, number>();
  items.forEach((item, i) => {
    const k = keys[i]!;
    counts.set(k, (counts.get(k) ?? 0) + 1);
    if (!out.has(k)) out.set(k, item);
  });
  for (const [k, n] of counts) {
    if (n < 2) continue;
    const first = out.get(k)!;
    problems.push(`${side} ${n} ${first.item} items for ${first.vin} at ${when(first)}: the store keys data points by VIN, item and time, so ${advice}`);
  }
  return out;
}

const when = (item: ExpectedItem): string => String(item.payload.timestamp ?? item.payload.receivedAt ?? 'the time the message was received');

async function caseBody(adapter: Adapter, c: MappingCase): Promise<string> {
  const given = [c.input !== undefined, c.fixture !== undefined, c.raw !== undefined].filter(Boolean).length;
  if (given !== 1) throw new Error('a case needs exactly one of "input", "fixture" and "raw"');
  if (c.raw !== undefined) return c.raw;
  if (c.fixture !== undefined) return readFile(join(adapter.dir, 'fixtures', c.fixture), 'utf8');
  return JSON.stringify(c.input);
}
