import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { type Services } from '../src/services.ts';
import { helloWorld } from './hello-world.ts';
import { routeContexts } from '../src/main/route-contexts.ts';

/**
 * One server process of the delivery benchmark (bench/delivery.ts), forked by it:
 * - BENCH_SERVER=api: the service's HTTP front as an api process runs it (its own services, the
 *   store and Redis named by the JSON settings in BENCH_ENV, its own read model and rate-limit
 *   leases);
 * - BENCH_SERVER=hello: the Fastify hello-world of the baseline, plus `POST /static` answering
 *   BENCH_STATIC_BODY (a real delivery answer, as a constant) when it is given.
 * It listens on 127.0.0.1:BENCH_PORT, says so to the parent, and stops on `{ cmd: 'stop' }` or
 * when the parent goes away.
 */
let services: Services | undefined;
let app: FastifyInstance;
if (process.env.BENCH_SERVER === 'api') {
  const config = loadConfig(JSON.parse(process.env.BENCH_ENV!) as Record<string, string>);
  services = await createServices(config, createLogger({ level: 'warn', pretty: false }), config.REDIS_URL!);
  app = await buildApp(services, routeContexts(services));
} else {
  app = helloWorld();
  const staticBody = process.env.BENCH_STATIC_BODY;
  if (staticBody) app.post('/static', async (_req, reply) => reply.type('application/json; charset=utf-8').send(staticBody));
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
