import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import consolePlugin from '../console/index.ts';
import type { Services } from '../services.ts';
import { consoleContext } from './console-context.ts';
import { routeContexts } from './route-contexts.ts';
import { mountWing, type Wing } from './wing.ts';

/**
 * The HTTP front this service serves: the app (src/app.ts), the operators' console on its
 * own context (src/console/), and, where this process loaded the virtual wing (SIMULATOR=on,
 * ./wing.ts), the wing's routes beside them (simulated authorization servers for the manifests
 * that declare one, the simulated polled API, the demo page); the virtual vehicles' sandbox
 * (docs/sandbox.md) only with the broker they publish to (`brokerUrl`).
 */
export async function buildServiceApp(services: Services, opts: { brokerUrl?: () => string; wing?: Wing | null } = {}): Promise<FastifyInstance> {
  const app = await buildApp(services, routeContexts(services));
  // The operators' console (/console): pages signed in with the admin token (docs/console.md).
  await app.register(consolePlugin, { ctx: consoleContext(services) });
  await mountWing(app, opts.wing ?? null, { services, sandbox: opts.brokerUrl !== undefined });
  return app;
}
