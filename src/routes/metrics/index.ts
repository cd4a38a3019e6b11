import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { bearerMatcher } from '../../http/bearer-token.ts';
import { sendError } from '../../http/error-body.ts';
import { metrics, registry } from '../../metrics/metrics.ts';
import { readinessChecks } from '../health/checks.ts';
import { probeAll } from '../health/probe.ts';
import type { MetricsContext, RouteGroupOptions } from '../contexts.ts';

/**
 * Prometheus metrics of this process (text exposition format), on the API's port and on
 * PROBE_PORT. They carry no personal data, but tell a lot about the service (traffic, queue
 * depths, consent funnel): with METRICS_TOKEN set, a scrape needs `Authorization: Bearer
 * <token>`, and a wrong token counts against the client address like a bad API key
 * (src/rate-limit/auth-failures.ts). Unset (the local try-out), it is open: keep it off the
 * public port then (docs/operations.md).
 */
export default async function metricsRoutes(app: FastifyInstance, opts: RouteGroupOptions<MetricsContext>): Promise<void> {
  const { ctx } = opts;
  const token = ctx.config.METRICS_TOKEN;
  const matches = token ? bearerMatcher(token) : undefined;
  const failures = ctx.authFailures;
  const { gauges } = ctx;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (matches) {
      // Answered here, not thrown: the probe server has no contract error handler.
      const refused =
        failures.locked(request.ip) ??
        (matches(request.headers.authorization) ? null : await failures.failed(request.ip, new ApiError(401, 'Unauthorized request, invalid metrics token.')));
      if (refused) {
        const headers = refused.statusCode === 401 ? { 'www-authenticate': 'Bearer' } : refused.headers;
        return sendError(request, reply, refused.statusCode, refused.reasonText, headers);
      }
    }
    // Alerting needs "Redis or the store is down" as a series, not only /ready's answer.
    const [, probes] = await Promise.all([gauges.refresh(), probeAll(readinessChecks(ctx))]);
    for (const [dependency, result] of Object.entries(probes)) metrics.dependencyUp.set({ dependency }, result.status === 'ok' ? 1 : 0);
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
