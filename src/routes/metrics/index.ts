import type { FastifyInstance } from 'fastify';
import { registry } from '../../metrics/metrics.ts';
import type { RouteOptions } from '../route-options.ts';

/**
 * Prometheus metrics of this process (text exposition format). They carry no personal data;
 * keep the path on the internal network all the same, as is usual for /metrics.
 */
export default async function metricsRoutes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { gauges } = opts.services;
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    await gauges.refresh();
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
