import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { type Services } from '../src/services.ts';
import { helloWorld } from './hello-world.ts';

/**
 * One server process of the delivery benchmark (bench/delivery.ts), forked by it:
 * - BENCH_SERVER=api: the service's HTTP front as an api process runs it (its own services, the
 *   store and Redis named by the JSON settings in BENCH_ENV, its own read model and rate-limit
 *   leases);
 * - BENCH_SERVER=hello: the Fastify hello-world of the baseline.
 * It listens on 127.0.0.1:BENCH_PORT, says so to the parent, and stops on `{ cmd: 'stop' }` or
 * when the parent goes away.
 */
let services: Services | undefined;
let app: FastifyInstance;
if (process.env.BENCH_SERVER === 'api') {
  const config = loadConfig(JSON.parse(process.env.BENCH_ENV!) as Record<string, string>);
  services = await createServices(config, createLogger({ level: 'warn', pretty: false }), config.REDIS_URL!);
  app = await buildApp(services);
} else {
  app = helloWorld();
}
await app.listen({ port: Number(process.env.BENCH_PORT), host: '127.0.0.1' });

async function stop(): Promise<void> {
  await app.close();
  if (services) await closeServices(services);
  process.exit(0);
}
process.on('message', (m: { cmd?: string }) => {
  if (m.cmd === 'stop') void stop();
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
