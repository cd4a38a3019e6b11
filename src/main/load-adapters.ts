import { loadAdapterRegistry, type AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Config } from '../config.ts';
import type { MappingIsolate } from '../mapping/isolate.ts';
import type { Paths } from '../paths.ts';

/**
 * adapters/ and mappings/ as they are on disk, checked and compiled under this configuration's
 * mapping limits and engine: at start, and again for each reload (src/main/mapping-reloads.ts).
 * Mappings that run interpreted are evaluated in `isolate`, shared by every load.
 */
export function loadAdapters(
  config: Pick<Config, 'MAPPING_TIMEOUT_MS' | 'MAPPING_MAX_DEPTH' | 'MAPPING_COMPILER'>,
  paths: Pick<Paths, 'adapters' | 'mappings'>,
  catalog: Catalog,
  isolate: MappingIsolate,
): Promise<AdapterRegistry> {
  return loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
    mappingsDir: paths.mappings,
    limits: mappingLimits(config),
    engine: { compiler: config.MAPPING_COMPILER === 'on', isolate },
  });
}

export function mappingLimits(config: Pick<Config, 'MAPPING_TIMEOUT_MS' | 'MAPPING_MAX_DEPTH'>) {
  return { timeoutMs: config.MAPPING_TIMEOUT_MS, maxDepth: config.MAPPING_MAX_DEPTH, maxSequence: 100_000 };
}
