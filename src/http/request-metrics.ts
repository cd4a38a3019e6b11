import type { FastifyInstance } from 'fastify';
import { metrics } from '../metrics/metrics.ts';

/**
 * Every answer's duration into cvd_http_request_duration_seconds, labelled by the route's
 * template (`/management/v1/vehicles/:vin`, never the VIN itself) so the label set stays small
 * and carries no personal data; a URL no route serves counts as "unmatched".
 */
export function installRequestMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequestDuration.observe({ method: request.method, route, status_class: `${Math.floor(reply.statusCode / 100)}xx` }, reply.elapsedTime / 1000);
    done();
  });
}
