import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, apiErrors } from '../errors.ts';
import { sendError } from './error-body.ts';

/** Fastify's own client-error codes, mapped to the contract's texts. */
const FASTIFY_CODES: Record<string, (err: FastifyError, bodyLimit: number) => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, limit) => apiErrors.payloadTooLarge(limit),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => apiErrors.unsupportedMediaType(),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => apiErrors.badRequest('the request body is empty.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => apiErrors.badRequest('the request body is not valid JSON.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => apiErrors.badRequest('invalid Content-Length.'),
};

/**
 * One error handler for the whole API: coded errors become the contract's error body; bad
 * input is a 4xx naming the problem; anything unexpected is a 500 without internals (the
 * details go to the log).
 */
export function installErrorHandler(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ApiError) {
      return sendError(request, reply, err.statusCode, err.reasonText, err.headers);
    }
    const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (mapped) {
      const e = mapped(err, bodyLimit);
      return sendError(request, reply, e.statusCode, e.reasonText, e.headers);
    }
    if (err.validation) {
      return sendError(request, reply, 400, `Bad request, ${err.message}.`);
    }
    if (err instanceof SyntaxError) {
      return sendError(request, reply, 400, 'Bad request, the request body is not valid JSON.');
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(request, reply, err.statusCode, `Bad request, ${err.message}`);
    }
    request.log.error({ err }, 'unhandled error');
    const e = apiErrors.internal();
    return sendError(request, reply, e.statusCode, e.reasonText);
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, 404, `No route for ${request.method} ${request.url.split('?')[0]}.`));
}
