import { relative } from 'node:path';
import { isReloadable } from '../adapters/reloadable.ts';
import { watchFolders } from '../cli/watch.ts';
import { listenForReloads, processName, recordOutcome } from '../mapping-cases/reload-bus.ts';
import { createMappingReloader, type ReloadOutcome } from '../mapping-cases/reloader.ts';
import type { Running } from '../running.ts';
import type { Services } from '../services.ts';

export interface MappingReloads extends Running {
  /** Reloads this process now (a test, or a caller in this process). */
  reload(trigger: string): Promise<ReloadOutcome>;
  /** Resolves once this process listens for reload requests. */
  listening: Promise<void>;
}

/**
 * Mappings and manifests without a restart, in every process: each listens for the reload
 * command (`npm run cli -- mappings reload`, or the console's button) and, with MAPPINGS_WATCH
 * (on in the try-out), reloads by itself when a file under adapters/ or mappings/ changes.
 * Each outcome (applied, unchanged, or refused with its reasons) is logged by the reloader and
 * recorded in Redis, where the command waits for it and the console shows it.
 */
export function startMappingReloads(services: Services): MappingReloads {
  const { config, logger, paths, redis } = services;
  const registry = services.adapters;
  if (!isReloadable(registry)) throw new Error('the adapters registry of this process cannot be reloaded');
  const reloader = createMappingReloader({
    registry,
    load: () => registry.load(),
    catalog: services.catalog,
    mappingsDir: paths.mappings,
    clock: services.clock,
    logger,
  });
  const reload = async (trigger: string, requestId: string | null = null) => {
    const outcome = await reloader.reload(trigger);
    await recordOutcome(redis, config.QUEUE_PREFIX, { ...outcome, process: processName(), roles: [...config.ROLES], requestId }).catch((err: Error) =>
      logger.warn({ err: err.message }, 'mapping reload outcome not recorded (Redis unavailable?)'),
    );
    return outcome;
  };

  // Not awaited by the start: a process opens its port while Redis is down, and subscribes once it answers.
  const listener = listenForReloads({ redisUrl: services.redisUrl, publisher: redis }, config.QUEUE_PREFIX, logger, (requestId) => void reload('reload command', requestId));

  const stopWatching = new AbortController();
  const watching = config.MAPPINGS_WATCH
    ? watchFolders(
        [paths.adapters, paths.mappings],
        async (file) => {
          await reload(`file change: ${file}`);
        },
        stopWatching.signal,
        // Editors save in steps, and a mapping often changes with its case: one reload for both.
        300,
      ).catch((err: Error) => logger.warn({ err: err.message }, 'not watching mappings'))
    : Promise.resolve();
  if (config.MAPPINGS_WATCH) logger.info({ folders: [relative(paths.root, paths.adapters), relative(paths.root, paths.mappings)] }, 'watching mappings: a saved change is served once its cases pass');

  return {
    name: 'mapping-reloads',
    reload,
    listening: listener.ready,
    async close() {
      stopWatching.abort();
      await watching;
      await listener.close();
    },
  };
}
