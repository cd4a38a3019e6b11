import { basename } from 'node:path';
import type { Adapter } from '../adapters/manifest.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';
import { listCaseFiles, runCase, type CaseResult } from '../mapping-cases/cases.ts';
import { compileMappingSource, MappingCompileError } from '../mapping/compile.ts';
import { dryRun, type DryRunResult } from '../pipeline/dry-run.ts';
import type { ConsoleContext } from './context.ts';

/** What running an edited mapping needs: the adapters, the catalog, the cases' folder, the clock and the mapping limits. */
type PlaygroundDeps = Pick<ConsoleContext, 'adapters' | 'catalog' | 'paths' | 'clock' | 'config'>;

/**
 * The mapping playground's server side: the manufacturer's adapter with ONE mapping replaced by
 * the edited text, compiled under the same limits and engine as every mapping (MAPPING_TIMEOUT_MS,
 * MAPPING_MAX_DEPTH, MAPPING_COMPILER), then the dry run or the manufacturer's cases on it. Nothing is written:
 * the registry the pipeline uses is never touched.
 */
export type Edited = { ok: true; registry: AdapterRegistry } | { ok: false; compileError: string };

export function withEditedMapping(services: PlaygroundDeps, manufacturer: string, messageType: string, source: string): Edited | undefined {
  const adapter = services.adapters.get(manufacturer);
  const current = adapter?.mappings.get(messageType);
  if (!adapter || !current) return undefined;
  const { MAPPING_TIMEOUT_MS, MAPPING_MAX_DEPTH, MAPPING_COMPILER } = services.config;
  let compiled;
  try {
    compiled = compileMappingSource(current.file, source, { timeoutMs: MAPPING_TIMEOUT_MS, maxDepth: MAPPING_MAX_DEPTH, maxSequence: 100_000 }, { compiler: MAPPING_COMPILER === 'on' });
  } catch (err) {
    if (err instanceof MappingCompileError) return { ok: false, compileError: err.message.replace(current.file, `mappings/${manufacturer}/${basename(current.file)}`) };
    throw err;
  }
  const edited: Adapter = { ...adapter, mappings: new Map(adapter.mappings).set(messageType, compiled) };
  const registry: AdapterRegistry = {
    list: () => services.adapters.list().map((a) => (a.manifest.id === manufacturer ? edited : a)),
    get: (id) => (id === manufacturer ? edited : services.adapters.get(id)),
    forVin: (vin) => {
      const a = services.adapters.forVin(vin);
      return a?.manifest.id === manufacturer ? edited : a;
    },
  };
  return { ok: true, registry };
}

export async function playgroundDryRun(services: PlaygroundDeps, registry: AdapterRegistry, manufacturer: string, messageType: string, raw: string): Promise<DryRunResult> {
  return (await dryRun(registry, services.catalog, manufacturer, messageType, raw, services.clock.now().toISOString()))!;
}

/** Every case of the manufacturer (mappings/<id>/cases/), run against the edited adapter. */
export async function playgroundCases(services: PlaygroundDeps, registry: AdapterRegistry, manufacturer: string): Promise<CaseResult[]> {
  const files = (await listCaseFiles(services.paths.mappings)).filter(([m]) => m === manufacturer);
  return Promise.all(files.map(([m, file]) => runCase(registry, services.catalog, m, file, services.paths.mappings)));
}
