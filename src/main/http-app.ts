import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import consolePlugin from '../console/index.ts';
import type { Services } from '../services.ts';
import virtualWing from '../virtual/index.ts';
import sandboxRoutes from '../virtual/sandbox/index.ts';
import { consoleContext } from './console-context.ts';
import { routeContexts } from './route-contexts.ts';

/**
 * The HTTP front this service serves: the app (src/app.ts), the operators' console on its
 * own context (src/console/), and, beside them, the virtual wing
 * (simulated authorization servers for the manifests that declare one, the demo pages), which
 * only the composition root knows. The virtual vehicles' sandbox (docs/sandbox.md) only where
 * they run (SIMULATOR=on, with the broker they publish to: `brokerUrl`).
 */
export async function buildServiceApp(services: Services, opts: { brokerUrl?: () => string } = {}): Promise<FastifyInstance> {
  const app = await buildApp(services, routeContexts(services));
  // The operators' console (/console): pages signed in with the admin token (docs/console.md).
  await app.register(consolePlugin, { ctx: consoleContext(services) });
  await app.register(virtualWing, { services });
  if (services.config.SIMULATOR === 'on' && opts.brokerUrl) await app.register(sandboxRoutes, { services });
  return app;
}
