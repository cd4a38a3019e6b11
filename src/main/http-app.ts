import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import type { Services } from '../services.ts';
import virtualWing from '../virtual/index.ts';
import sandboxRoutes from '../virtual/sandbox/index.ts';

/**
 * The HTTP front this service serves: the app (src/app.ts) and, beside it, the virtual wing
 * (simulated authorization servers for the manifests that declare one, the demo pages), which
 * only the composition root knows. The virtual vehicles' sandbox (docs/sandbox.md) only where
 * they run (SIMULATOR=on, with the broker they publish to: `brokerUrl`).
 */
export async function buildServiceApp(services: Services, opts: { brokerUrl?: () => string } = {}): Promise<FastifyInstance> {
  const app = await buildApp(services);
  await app.register(virtualWing, { services });
  if (services.config.SIMULATOR === 'on' && opts.brokerUrl) await app.register(sandboxRoutes, { services });
  return app;
}
