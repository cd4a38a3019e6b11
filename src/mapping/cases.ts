import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Adapter } from '../adapters/manifest.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { analyse } from '../pipeline/harmonize.ts';
import { rawMessage } from '../pipeline/raw-message.ts';
import type { QuarantineCode } from '../store/contract/quarantine.ts';

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

const key = (i: { vin: string; item: string; payload: Record<string, unknown> }) =>
  `${i.vin}|${i.item}|${String(i.payload.timestamp ?? i.payload.receivedAt ?? '')}`;

/** Runs one case file; an empty `problems` list means it passed. */
export async function runCase(registry: AdapterRegistry, catalog: Catalog, manufacturer: string, file: string, mappingsDir: string): Promise<CaseResult> {
  const name = file.slice(mappingsDir.length + 1);
  const problems: string[] = [];
  const adapter = registry.get(manufacturer);
  if (!adapter) return { manufacturer, name, problems: [`no adapter "${manufacturer}" (adapters/${manufacturer}/manifest.json)`] };
  let c: MappingCase;
  try {
    c = JSON.parse(await readFile(file, 'utf8')) as MappingCase;
  } catch (err) {
    return { manufacturer, name, problems: [`case file is not valid JSON: ${(err as Error).message}`] };
  }
  const body = await caseBody(adapter, c).catch((err: Error) => {
    problems.push(err.message);
    return undefined;
  });
  if (body === undefined) return { manufacturer, name, problems };
  const analysis = await analyse(adapter, catalog, rawMessage({ manufacturer, messageType: c.messageType, receivedAt: c.receivedAt ?? DEFAULT_RECEIVED_AT }, body));

  if ('error' in c.expect) {
    if (!analysis.failure) problems.push(`expected error ${c.expect.error}, but the message mapped to ${analysis.candidates.length} valid items`);
    else if (analysis.failure.code !== c.expect.error) problems.push(`expected error ${c.expect.error}, got ${analysis.failure.code}: ${analysis.failure.reason}`);
    else if (c.expect.reasonContains && !analysis.failure.reason.includes(c.expect.reasonContains)) {
      problems.push(`error reason "${analysis.failure.reason}" does not contain "${c.expect.reasonContains}"`);
    }
    return { manufacturer, name, problems };
  }

  // The expected output must itself be catalog-valid: a case cannot bless an invalid payload.
  for (const e of c.expect.items) {
    const v = catalog.validate(e.item, e.payload);
    if (!v.valid) problems.push(`expected ${e.item} is not valid against the catalog: ${v.errors.join('; ')}`);
  }
  if (analysis.failure) problems.push(`mapping failed: ${analysis.failure.code}: ${analysis.failure.reason}`);
  const actual = new Map(analysis.candidates.map((a) => [key(a), a]));
  const expected = new Map(c.expect.items.map((e) => [key(e), e]));
  for (const [k, e] of expected) {
    const a = actual.get(k);
    if (!a) problems.push(`missing ${e.item} for ${e.vin}`);
    else if (!isDeepStrictEqual(a.payload, e.payload)) problems.push(`${e.item}: expected ${JSON.stringify(e.payload)}, got ${JSON.stringify(a.payload)}`);
  }
  for (const [k, a] of actual) if (!expected.has(k)) problems.push(`unexpected ${a.item} for ${a.vin}: ${JSON.stringify(a.payload)}`);
  return { manufacturer, name, problems };
}

async function caseBody(adapter: Adapter, c: MappingCase): Promise<string> {
  const given = [c.input !== undefined, c.fixture !== undefined, c.raw !== undefined].filter(Boolean).length;
  if (given !== 1) throw new Error('a case needs exactly one of "input", "fixture" and "raw"');
  if (c.raw !== undefined) return c.raw;
  if (c.fixture !== undefined) return readFile(join(adapter.dir, 'fixtures', c.fixture), 'utf8');
  return JSON.stringify(c.input);
}
