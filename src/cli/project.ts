import type { Adapter } from '../adapters/manifest.ts';
import { loadAdapterRegistry, type AdapterRegistry } from '../adapters/registry.ts';
import type { CliContext } from './command.ts';
import { UsageError } from './command.ts';
import { didYouMean } from './did-you-mean.ts';

/** The adapters and their compiled mappings, loaded afresh (the service's own checks and limits). */
export async function loadRegistry(ctx: CliContext): Promise<AdapterRegistry> {
  const catalog = await ctx.catalog();
  return loadAdapterRegistry(ctx.paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
    mappingsDir: ctx.paths.mappings,
    limits: { timeoutMs: ctx.config.MAPPING_TIMEOUT_MS, maxDepth: ctx.config.MAPPING_MAX_DEPTH, maxSequence: 100_000 },
    engine: { compiler: ctx.config.MAPPING_COMPILER === 'on' },
  });
}

/** The adapter of this id, or a usage error naming the ids close to it. */
export function knownManufacturer(reg: AdapterRegistry, id: string): Adapter {
  const adapter = reg.get(id);
  if (adapter) return adapter;
  const ids = reg.list().map((a) => a.manifest.id);
  throw new UsageError(`no manufacturer "${id}"${didYouMean(id, ids)}; there are: ${ids.join(', ')}`);
}
