import { join } from 'node:path';
import { ConfigError, loadConfigOrExit } from './config.ts';
import { createLogger } from './logger.ts';
import { seedDemo } from './main/demo-seed.ts';
import { PortInUseError } from './main/port-in-use.ts';
import { startPrivateRedis, type PrivateRedis } from './main/private-redis.ts';
import { StartAbortedError, startRoles, stopRoles } from './main/roles.ts';
import { watchSecretKeyAgreement } from './main/secret-key-agreement.ts';
import { installShutdown } from './main/shutdown.ts';
import { withTryOutConsole } from './main/try-out-console.ts';
import { loadWing, warnUnservedIssuers } from './main/wing.ts';
import { defaultPaths } from './paths.ts';
import type { Running } from './running.ts';
import { closeServices, createServices } from './main/create-services.ts';
import { redisAddressOf } from './queues/redis.ts';
import type { Services } from './services.ts';

/**
 * The entry point (`npm start`), part of the composition root with src/main/: it builds the
 * services, starts the roles and owns the shutdown. What listens (the API, the probe server,
 * the embedded MQTT broker) is started by src/main/roles.ts and nowhere else. `npm start` runs
 * every role in this one process; ROLES picks some (docs/operations.md). A process starts while Redis is down: its workers wait for
 * it, and /ready says "not ready" until it answers.
 */
async function main(): Promise<void> {
  // The try-out's console is on: it gets an admin token of its own, printed in the demo block.
  const { config, consoleToken } = withTryOutConsole(loadConfigOrExit());
  const logger = createLogger({ level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
  // The virtual wing, only with SIMULATOR=on: loaded (and its SIM_* settings read) before
  // anything starts, so a bad setting, or a build without it, stops the start at once.
  const wing = await loadWing(config, { env: process.env, paths: defaultPaths() }).catch((err: unknown) => {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(78);
  });

  // Installed before anything starts: a SIGTERM while a role still waits for Redis stops
  // what has started so far and exits, instead of killing the process mid-start.
  const starting = new AbortController();
  let started = false;
  let redisReached = false;
  const running: Running[] = [];
  let services: Services | undefined;
  let privateRedis: PrivateRedis | undefined;
  const shutdown = installShutdown({
    logger,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    async stop() {
      starting.abort();
      try {
        await stopRoles(running, {
          onError: (name, err) => logger.error({ err, part: name }, 'a part failed to stop'),
          // Stopped during the start, or before Redis ever answered (workers do not wait for
          // it at start): a second per part. A job cut off is not lost; another worker takes
          // it over once its lock runs out.
          ...(started && redisReached ? {} : { capMs: 1000 }),
        });
      } finally {
        if (services) await closeServices(services);
        await privateRedis?.stop();
      }
    },
  });

  const redisUrl = redisAddressOf(config);
  if (redisUrl === undefined) {
    // Watched: nobody else would restart it if it died (OOM killer, kill -9).
    privateRedis = await startPrivateRedis({ dir: join(config.DATA_DIR, 'redis'), watch: { logger } });
    logger.info({ url: privateRedis.url }, 'REDIS_URL not set: started a private redis-server');
  }
  services = await createServices(config, logger, redisUrl ?? privateRedis!.url, { wing });
  if (!wing && config.ROLES.includes('api')) warnUnservedIssuers(services.adapters.list(), logger);
  // Until then no worker has anything in flight, but BullMQ's close waits for a connection.
  services.redis.once('ready', () => (redisReached = true));
  // Another process of this installation runs with another key: stop at once (78: a
  // configuration error, as for a bad setting).
  watchSecretKeyAgreement(services, (err) => {
    logger.fatal(err.message);
    void shutdown.trigger('SECRET_KEY mismatch', 78);
  });
  try {
    await startRoles(services, { running, signal: starting.signal, wing });
  } catch (err) {
    if (err instanceof StartAbortedError) return;
    if (!(err instanceof PortInUseError)) throw err;
    // Said plainly (it names the setting), then what did start is stopped, private Redis included.
    console.error(err.message);
    await shutdown.trigger('port in use', 1);
    return;
  }
  started = true;
  if (config.DEMO_SEED && config.ROLES.includes('api')) await seedDemo(services, undefined, { consoleToken, wing });
  const api = config.ROLES.includes('api');
  logger.info(
    { roles: config.ROLES, url: api ? config.publicUrl : undefined, console: api && config.ADMIN_TOKEN ? `${config.publicUrl}/console` : undefined, docs: api ? `${config.publicUrl}/docs` : undefined },
    api ? `service started: API docs at ${config.publicUrl}/docs${config.ADMIN_TOKEN ? `, console at ${config.publicUrl}/console` : ' (the console needs ADMIN_TOKEN)'}` : 'service started',
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
