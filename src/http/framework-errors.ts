import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from '../config-sections.ts';
import { sendError } from './error-body.ts';
import { baselineSecurityHeaders } from './security-headers.ts';

/**
 * Fastify's `frameworkErrors`: what its router refuses before any hook or handler runs gets the
 * contract's error body (api-contract section 1) instead of Fastify's own, and the security
 * headers helmet would have set. Found by the OpenAPI fuzz tests (test/fuzz): a path with
 * broken percent-encoding (`/x/%E0%A4%A`) answered `{"error","code":"FST_ERR_BAD_URL",...}`.
 */
export function frameworkErrorHandler(config: Settings<'http'>) {
  const headers = baselineSecurityHeaders(config);
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    switch (err.code) {
      case 'FST_ERR_BAD_URL':
        sendError(request, reply, 400, 'Bad request, the URL is not validly percent-encoded.', headers);
        return;
      case 'FST_ERR_MAX_PARAM_LENGTH':
        sendError(request, reply, 414, 'URI too long: a path parameter exceeds its maximum length.', headers);
        return;
      default:
        request.log.error({ err }, 'router failure');
        sendError(request, reply, 500, 'Internal service failure occured. Please try again later.', headers);
    }
  };
}
