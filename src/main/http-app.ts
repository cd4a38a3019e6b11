import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import type { Services } from '../services.ts';
import virtualWing from '../virtual/index.ts';

/**
 * The HTTP front this service serves: the app (src/app.ts) and, beside it, the virtual wing
 * (simulated authorization servers for the manifests that declare one, the demo pages), which
 * only the composition root knows.
 */
export async function buildServiceApp(services: Services): Promise<FastifyInstance> {
  const app = await buildApp(services);
  await app.register(virtualWing, { services });
  return app;
}
