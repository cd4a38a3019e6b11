import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, apiErrors } from '../errors.ts';
import { StoreUnavailableError } from '../store/contract.ts';
import { sendError } from './error-body.ts';

/** Fastify's own client-error codes, mapped to the contract's texts. */
const FASTIFY_CODES: Record<string, (err: FastifyError, bodyLimit: number) => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, limit) => apiErrors.payloadTooLarge(limit),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => apiErrors.unsupportedMediaType(),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => apiErrors.badRequest('the request body is empty.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => apiErrors.badRequest('the request body is not valid JSON.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => apiErrors.badRequest('invalid Content-Length.'),
};

/** Seconds a client should wait before retrying when the store is down. */
const STORE_RETRY_AFTER_S = 5;

/**
 * A schema-validation failure as one sentence naming the field, e.g. "body has unknown
 * property 'foo'" or "body/name must be string". Values are never echoed: they may be secrets.
 */
function validationText(err: FastifyError): string {
  const first = err.validation?.[0];
  const where = `${err.validationContext ?? 'request'}${first?.instancePath ?? ''}`;
  if (first?.keyword === 'additionalProperties') {
    const name = String((first.params as { additionalProperty?: unknown }).additionalProperty ?? '').slice(0, 100);
    return `Bad request, ${where} has unknown property '${name}'.`;
  }
  return `Bad request, ${first ? `${where} ${first.message ?? 'is invalid'}` : err.message}.`;
}

/**
 * Any error a handler throws, as the coded error the API answers with: coded errors as they
 * are; bad input a 4xx naming the problem; a store outage a 503 with Retry-After; anything
 * unexpected a 500 without internals (the details go to the request's log). The API's handler
 * below and the console's (src/console/index.ts) both classify through this, and differ only
 * in how they show it: the contract's error body, or a page.
 */
export function toApiError(err: FastifyError, request: FastifyRequest, bodyLimit: number): ApiError {
  if (err instanceof ApiError) return err;
  const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (mapped) return mapped(err, bodyLimit);
  if (err.validation) return new ApiError(400, validationText(err));
  if (err instanceof SyntaxError) return apiErrors.badRequest('the request body is not valid JSON.');
  if (err instanceof StoreUnavailableError) {
    request.log.warn({ err }, 'store unavailable');
    return apiErrors.unavailable(STORE_RETRY_AFTER_S);
  }
  // e.g. @fastify/rate-limit: keep the Retry-After it set, answer with the contract's text.
  if (err.statusCode === 429) return new ApiError(429, 'Request limit exceeded for this plan.');
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) return new ApiError(err.statusCode, `Bad request, ${err.message}`);
  request.log.error({ err }, 'unhandled error');
  return apiErrors.internal();
}

/** One error handler for the whole API: every error as the contract's error body ({@link toApiError}). */
export function installErrorHandler(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const e = toApiError(err, request, bodyLimit);
    return sendError(request, reply, e.statusCode, e.reasonText, e.headers);
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, 404, `No route for ${request.method} ${request.url.split('?')[0]}.`));
}
