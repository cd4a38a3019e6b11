/**
 * `npm run simulator`: the virtual vehicles alone, publishing to MQTT_URL (default: the
 * embedded broker's address on this machine). Needs no store and no Redis.
 */
import { loadAdapterRegistry } from '../../src/adapters/registry.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { systemClock } from '../../src/clock.ts';
import { ConfigError, loadConfigOrExit } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { defaultPaths } from '../../src/paths.ts';
import { loadSimSettings } from './settings.ts';
import { startSimulator } from './start.ts';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger({ level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
  const paths = defaultPaths();
  const catalog = await loadCatalog(paths.catalog);
  const adapters = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)));
  const url = config.MQTT_URL ?? `mqtt://127.0.0.1:${config.MQTT_PORT}`;
  const running = await startSimulator({ config, logger, clock: systemClock, paths, adapters }, loadSimSettings(), url);
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  logger.info({ url: shown.toString() }, 'simulator publishing');
  const stop = async (signal: string) => {
    logger.info({ signal }, 'simulator stopping');
    for (const r of running) await r.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  // A bad SIM_* setting is a configuration error, as a bad setting of the service is (78).
  process.exit(err instanceof ConfigError ? 78 : 1);
});
