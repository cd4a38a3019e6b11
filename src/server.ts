import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { seedDemo } from './runtime/demo-seed.ts';
import { startPrivateRedis, type PrivateRedis } from './runtime/private-redis.ts';
import { startRoles, stopRoles } from './runtime/roles.ts';
import { closeServices, createServices } from './services.ts';

/** The only file that starts listening. `npm start` runs every role in this one process. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });

  let privateRedis: PrivateRedis | undefined;
  if (!config.REDIS_URL) {
    privateRedis = await startPrivateRedis({ dir: join(config.DATA_DIR, 'redis') });
    logger.info({ url: privateRedis.url }, 'REDIS_URL not set: started a private redis-server');
  }
  const services = await createServices(config, logger, config.REDIS_URL ?? privateRedis!.url);
  const running = await startRoles(services);
  if (config.DEMO_SEED && config.ROLES.includes('api')) await seedDemo(services);
  logger.info({ roles: config.ROLES, url: config.publicUrl }, 'service started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    try {
      await stopRoles(running);
      await closeServices(services);
      await privateRedis?.stop();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
