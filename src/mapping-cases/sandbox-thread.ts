import type { Adapter } from '../adapters/manifest.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';
import { loadCatalog } from '../catalog/load.ts';
import { compileMappingSource, MappingCompileError, type CompiledMapping } from '../mapping/compile.ts';
import { serveJobs } from '../mapping/thread-serve.ts';
import { dryRun, type DryRunResult } from '../pipeline/dry-run.ts';
import { runCase, type CaseResult } from './cases.ts';
import type { AdapterSpec, CompileFailure, SandboxJob, SandboxSetup } from './sandbox-job.ts';

/**
 * The mapping sandbox's thread (./sandbox.ts): loads the catalog once, then runs each dry run
 * or mapping case it is sent, exactly as the pipeline harmonizes, on the adapter it is given.
 * Compiled mappings are kept by their text, so a playground run re-compiles only an edit.
 */

/** Compiled texts kept, at most (an operator's edits are many; each is small). */
const KEEP = 64;

void serveJobs(async (setup: SandboxSetup) => {
  const catalog = await loadCatalog(setup.catalogDir);
  const compiled = new Map<string, CompiledMapping>();

  const compile = (file: string, source: string): CompiledMapping => {
    const key = `${file}\n${source}`;
    let m = compiled.get(key);
    if (!m) {
      m = compileMappingSource(file, source, setup.limits, setup.engine);
      if (compiled.size >= KEEP) compiled.delete(compiled.keys().next().value!);
      compiled.set(key, m);
    }
    return m;
  };

  const registryOf = (spec: AdapterSpec): AdapterRegistry => {
    const mappings = new Map(spec.mappings.map((m) => [m.messageType, compile(m.file, m.source)]));
    const adapter: Adapter = { manifest: spec.manifest, dir: spec.dir, mappings };
    return { list: () => [adapter], get: (id) => (id === spec.manifest.id ? adapter : undefined), forVin: () => adapter };
  };

  return async (job: SandboxJob): Promise<DryRunResult | CaseResult | CompileFailure> => {
    let registry: AdapterRegistry;
    try {
      registry = registryOf(job.adapter);
    } catch (err) {
      if (err instanceof MappingCompileError) return { compileError: err.message };
      throw err;
    }
    const id = job.adapter.manifest.id;
    if (job.kind === 'dry-run') return (await dryRun(registry, catalog, id, job.messageType, job.raw, job.receivedAt))!;
    return runCase(registry, catalog, id, job.file, job.mappingsDir);
  };
});
