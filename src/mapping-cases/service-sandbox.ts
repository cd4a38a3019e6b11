import type { Services } from '../services.ts';
import { createMappingSandbox, type MappingSandbox } from './sandbox.ts';

/** The mapping sandbox under this process's settings (limits and engine as every mapping's). */
export function createServiceSandbox(services: Pick<Services, 'config' | 'paths' | 'logger'>): MappingSandbox {
  const { config } = services;
  return createMappingSandbox({
    catalogDir: services.paths.catalog,
    limits: { timeoutMs: config.MAPPING_TIMEOUT_MS, maxDepth: config.MAPPING_MAX_DEPTH, maxSequence: 100_000 },
    engine: { compiler: config.MAPPING_COMPILER === 'on' },
    memoryMb: config.MAPPING_SANDBOX_MEMORY_MB,
    onStopped: (reason) => services.logger.warn({ reason }, 'mapping sandbox run stopped'),
  });
}
