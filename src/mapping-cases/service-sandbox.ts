import type { Settings } from '../config-sections.ts';
import type { Logger } from '../logger.ts';
import type { Paths } from '../paths.ts';
import { createMappingSandbox, type MappingSandbox } from './sandbox.ts';

/** One sandbox per process's services, shared by its users (the console, the admin dry run), with how many hold it. */
const shared = new WeakMap<object, { sandbox: MappingSandbox; holders: number }>();

/**
 * The mapping sandbox under this process's settings (limits and engine as every mapping's),
 * shared by every part of the process that runs dry runs or cases: one thread (one heap of
 * MAPPING_SANDBOX_MEMORY_MB) however many routes use it. Each user releases it when it closes;
 * the last one ends the thread.
 */
export function acquireServiceSandbox(services: { config: Settings<'mapping'>; paths: Pick<Paths, 'catalog'>; logger: Logger }): { sandbox: MappingSandbox; release(): Promise<void> } {
  let entry = shared.get(services);
  if (!entry) {
    const { config } = services;
    const sandbox = createMappingSandbox({
      catalogDir: services.paths.catalog,
      limits: { timeoutMs: config.MAPPING_TIMEOUT_MS, maxDepth: config.MAPPING_MAX_DEPTH, maxSequence: 100_000 },
      engine: { compiler: config.MAPPING_COMPILER === 'on' },
      memoryMb: config.MAPPING_SANDBOX_MEMORY_MB,
      onStopped: (reason) => services.logger.warn({ reason }, 'mapping sandbox run stopped'),
    });
    entry = { sandbox, holders: 0 };
    shared.set(services, entry);
  }
  const held = entry;
  held.holders++;
  let released = false;
  return {
    sandbox: held.sandbox,
    async release() {
      if (released) return;
      released = true;
      if (--held.holders > 0) return;
      shared.delete(services);
      await held.sandbox.close();
    },
  };
}
