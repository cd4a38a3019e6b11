import type { FastifyInstance } from 'fastify';

/**
 * Closes an HTTP app for a graceful shutdown: the listener stops taking connections, requests
 * in flight run to their end, and every keep-alive connection is closed as soon as it is idle.
 * Fastify (forceCloseConnections "idle") closes only the connections idle at the moment close()
 * is called; one whose request finishes later would stay open until its keep-alive timeout
 * (HTTP_KEEP_ALIVE_TIMEOUT_MS, 72 s) and hold the shutdown past SHUTDOWN_TIMEOUT_MS. Requests
 * that still arrive on such a connection meanwhile get a 503 with `Connection: close`
 * (src/http/closing.ts).
 */
export async function drainAndClose(app: FastifyInstance, everyMs = 100): Promise<void> {
  const closed = app.close();
  const sweep = setInterval(() => app.server.closeIdleConnections(), everyMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
  }
}
