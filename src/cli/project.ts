import { readFile } from 'node:fs/promises';
import type { Adapter } from '../adapters/manifest.ts';
import { loadAdapterRegistry, type AdapterRegistry } from '../adapters/registry.ts';
import type { CliArgs, CliContext } from './command.ts';
import { requiredString, UsageError } from './command.ts';
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

/**
 * A raw message file and where it goes, from a command's arguments (`<file> --manufacturer
 * --type`): its text, the registry, the adapter and the message type, or a usage error saying
 * which of them is wrong.
 */
export async function rawMessageArgs(ctx: CliContext, args: CliArgs): Promise<{ raw: string; reg: AdapterRegistry; adapter: Adapter; type: string }> {
  const file = args.positionals[0]!;
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const reg = await loadRegistry(ctx);
  const adapter = knownManufacturer(reg, requiredString(args, 'manufacturer'));
  const type = requiredString(args, 'type');
  const types = Object.keys(adapter.manifest.messageTypes);
  if (!types.includes(type)) throw new UsageError(`${adapter.manifest.id} has no message type "${type}"${didYouMean(type, types)}; its types: ${types.join(', ')}`);
  return { raw, reg, adapter, type };
}
