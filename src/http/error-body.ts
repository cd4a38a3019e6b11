import type { FastifyReply, FastifyRequest } from 'fastify';

export const JSON_UTF8 = 'application/json;charset=UTF-8';

const CONFIRMATION_PREFIX = '/api/consent/provisioning/confirmation/';

/** The contract's error body (api-contract section 1). */
export interface ErrorBody {
  reasonCode: string;
  reasonText: string;
  url: string;
  method: string;
}

/**
 * The error body for a method and raw URL, without a Fastify request (the client-error
 * handler has only the raw request line). The query string is dropped. The confirmation call
 * keeps the spec's own form: `car.<status>` and the url without the `/api` prefix.
 */
export function errorBodyFor(method: string, url: string, statusCode: number, reasonText: string): ErrorBody {
  const path = url.split('?')[0] ?? url;
  const confirmation = path.startsWith(CONFIRMATION_PREFIX);
  return {
    reasonCode: `${confirmation ? 'car' : 'CAR'}.${statusCode}`,
    reasonText,
    url: confirmation ? path.slice('/api'.length) : path,
    method,
  };
}

export function errorBody(request: FastifyRequest, statusCode: number, reasonText: string): ErrorBody {
  return errorBodyFor(request.method, request.url, statusCode, reasonText);
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  statusCode: number,
  reasonText: string,
  headers: Record<string, string> = {},
): FastifyReply {
  return reply
    .code(statusCode)
    .headers(headers)
    .type(JSON_UTF8)
    .send(errorBody(request, statusCode, reasonText));
}
