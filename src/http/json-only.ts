import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { apiErrors } from '../errors.ts';

/** `application/json`, optionally with parameters such as `charset=utf-8`. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * onRequest hook for JSON APIs: a request that carries a body in any other media type is a
 * 415, before the body is read. Fastify itself also parses text/plain and (through
 * @fastify/formbody, which the consent portal needs) form posts; this keeps those out of the
 * JSON APIs. Requests without a body (e.g. a POST that creates a key) need no content type.
 */
export async function requireJsonBody(request: FastifyRequest): Promise<void> {
  if (!hasBody(request)) return;
  const type = request.headers['content-type'];
  if (type === undefined || !JSON_MEDIA_TYPE.test(type)) throw apiErrors.unsupportedMediaType();
}

/**
 * Every route that declares a body schema takes JSON, so it gets requireJsonBody, after the
 * route's own onRequest hooks (authentication first). One rule for the whole app, so that a
 * route added later cannot forget it (PUT /push/v1/webhook once parsed form posts). Call it
 * before the routes are registered; routes that take forms (the consent pages, the simulated
 * manufacturer's OAuth endpoints) declare no body schema.
 */
export function requireJsonWhereBodySchema(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) return;
    const own: onRequestHookHandler[] = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    if (!own.includes(requireJsonBody)) route.onRequest = [...own, requireJsonBody];
  });
}
