import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';

/** Ids a caller may choose: short, and harmless in a log line or a header. */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `x-request-id` when it is a sane token (so a gateway's id
 * ties its logs to ours), else a new UUID. The id is echoed in the `x-request-id` response
 * header and is the `reqId` of every log line of the request.
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && CALLER_ID.test(value) ? value : randomUUID();
}
