import Fastify, { type FastifyInstance } from 'fastify';

/**
 * The Fastify hello-world every delivery ratio is taken against (performance.md: a route
 * returning a constant), one definition for the baseline in the bench's own process and in the
 * forked ones (bench/delivery-server.ts).
 */
export function helloWorld(): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ hello: 'world' }));
  return app;
}
