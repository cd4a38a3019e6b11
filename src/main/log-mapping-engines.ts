import { relative } from 'node:path';
import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Logger } from '../logger.ts';

/**
 * One line per mapping file at start: whether it runs compiled to JavaScript or in the JSONata
 * interpreter, and why not compiled (MAPPING_COMPILER off, or a construct the translator does
 * not model). A mapping that fell back is slower, not wrong: the operator sees which and why.
 */
export function logMappingEngines(adapters: AdapterRegistry, logger: Logger): void {
  const seen = new Set<string>();
  for (const adapter of adapters.list()) {
    for (const mapping of adapter.mappings.values()) {
      if (seen.has(mapping.file)) continue;
      seen.add(mapping.file);
      const file = relative(process.cwd(), mapping.file);
      if (mapping.engine === 'compiled') logger.info({ mapping: file, engine: 'compiled' }, 'mapping runs compiled to JavaScript');
      else logger.info({ mapping: file, engine: 'interpreted', because: mapping.interpretedBecause }, 'mapping runs in the JSONata interpreter');
    }
  }
}
