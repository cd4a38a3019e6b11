import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** Probes for orchestrators: /health says the process is alive, /ready that its dependencies answer. */
export default async function healthRoutes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { services } = opts;
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/ready', { schema: { hide: true } }, async (_request, reply) => {
    const checks: Record<string, string> = {
      store: await probe(() => services.store.ping()),
      redis: await probe(async () => {
        await services.redis.ping();
      }),
    };
    for (const [name, check] of services.readiness) checks[name] = await probe(check);
    const ready = Object.values(checks).every((c) => c === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });
}

async function probe(check: () => Promise<void>): Promise<string> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000))]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message : 'failed';
  }
}
