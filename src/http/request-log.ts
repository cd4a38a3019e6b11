import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's per-request lines ("incoming request", "request completed") at debug instead of
 * info, failures unchanged. For the local try-out, where a new user reads the terminal: there every curl of the
 * demo block printed two info lines, and a few calls scrolled the block (the API key, the
 * commands) out of view. LOG_LEVEL=debug shows them again.
 */
class QuietRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Fastify's `logController` option: the quiet one in the try-out (DEMO_SEED on), Fastify's own elsewhere. */
export function requestLogOptions(tryOut: boolean): { logController?: LogController } {
  return tryOut ? { logController: new QuietRequestLog() } : {};
}
