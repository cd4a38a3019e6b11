import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { AddressInfo } from 'node:net';
import healthRoutes from '../routes/health/index.ts';
import metricsRoutes from '../routes/metrics/index.ts';
import type { Services } from '../services.ts';
import { drainAndClose } from './drain-http.ts';
import { healthContext, metricsContext } from './route-contexts.ts';
import type { Running } from '../running.ts';

/**
 * For processes without the api role (workers, the broker, the simulator): /health, /ready
 * and /metrics on PROBE_PORT, so an orchestrator can probe them and Prometheus can scrape the
 * counters that only they keep (e.g. mapping failures in the pipeline). Nothing else is served.
 * It starts before the roles, so /health answers (and /ready says why not) while a role still
 * waits for Redis.
 */
export async function startProbeServer(services: Services): Promise<Running & { port: number }> {
  const { config } = services;
  const app = Fastify({ loggerInstance: services.logger as FastifyBaseLogger });
  // Probes come every few seconds: their request lines stay below info.
  await app.register(healthRoutes, { ctx: healthContext(services), logLevel: 'warn' });
  await app.register(metricsRoutes, { ctx: metricsContext(services), logLevel: 'warn' });
  await app.listen({ port: config.PROBE_PORT, host: config.HOST });
  const port = (app.server.address() as AddressInfo).port;
  services.logger.info({ port }, 'probe server listening (/health, /ready, /metrics)');
  return { name: 'probe-server', port, close: () => drainAndClose(app) };
}
