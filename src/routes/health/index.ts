import type { FastifyInstance } from 'fastify';
import type { HealthContext, RouteGroupOptions } from '../contexts.ts';
import { readinessChecks } from './checks.ts';
import { probeAll } from './probe.ts';

const readySchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not ready'] },
    failing: { type: 'array', items: { type: 'string' }, description: 'The dependencies that did not answer.' },
    checks: { type: 'object', additionalProperties: { type: 'string' }, description: '"ok", "timeout" or "unreachable" per dependency.' },
  },
  required: ['status', 'failing', 'checks'],
} as const;

/**
 * Probes for orchestrators: /health says the process is alive (no dependency is asked, so a
 * database outage never gets the process restarted), /ready that its dependencies answer:
 * the store, Redis, and whatever the running roles registered (e.g. the MQTT broker). A 503
 * names the failing dependencies.
 */
export default async function healthRoutes(app: FastifyInstance, opts: RouteGroupOptions<HealthContext>): Promise<void> {
  const { ctx } = opts;
  app.get(
    '/health',
    {
      schema: {
        tags: ['probes'],
        summary: 'Liveness',
        response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, required: ['status'] } },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/ready',
    { schema: { tags: ['probes'], summary: 'Readiness: store, Redis, broker', response: { 200: readySchema, 503: readySchema } } },
    async (request, reply) => {
      const results = await probeAll(readinessChecks(ctx));
      const checks = Object.fromEntries(Object.entries(results).map(([name, r]) => [name, r.status]));
      const failing = Object.keys(checks).filter((name) => checks[name] !== 'ok');
      const ready = failing.length === 0;
      // The reasons (addresses, driver messages) go to the log only: /ready is public.
      if (!ready) request.log.warn({ failing: Object.fromEntries(failing.map((n) => [n, results[n]])) }, 'not ready');
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ready' : 'not ready', failing, checks });
    },
  );
}
