import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../errors.ts';
import { sendError } from './error-body.ts';

/**
 * While the server drains on shutdown, requests still arriving on open keep-alive connections
 * get a 503 with the contract's error body, `Retry-After` and `Connection: close`, so a load
 * balancer sends them elsewhere. Replaces Fastify's `return503OnClosing` (set it to false),
 * whose body is not ours.
 */
export function installClosingGuard(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    const e = apiErrors.unavailable(1, 'Service is shutting down. Please try again.');
    reply.header('connection', 'close');
    return sendError(request, reply, e.statusCode, e.reasonText, e.headers);
  });
}
