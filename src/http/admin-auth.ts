import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Settings } from '../config-sections.ts';
import type { AuthFailures } from '../rate-limit/auth-failures.ts';
import { bearerMatcher } from './bearer-token.ts';

/**
 * onRequest hook for /admin/v1/*: `Authorization: Bearer $ADMIN_TOKEN`, checked before the body
 * is read. Disabled (404) when ADMIN_TOKEN is unset. A wrong token counts against the client
 * address like a bad API key (src/rate-limit/auth-failures.ts): past the limit, 429.
 */
export function requireAdmin(services: { authFailures: AuthFailures; config: Pick<Settings<'http'>, 'ADMIN_TOKEN'> }) {
  const token = services.config.ADMIN_TOKEN;
  const matches = token ? bearerMatcher(token) : undefined;
  const failures = services.authFailures;
  return async function checkAdmin(request: FastifyRequest): Promise<void> {
    if (!matches) throw new ApiError(404, 'The admin API is disabled: set ADMIN_TOKEN to enable it.');
    const locked = failures.locked(request.ip);
    if (locked) throw locked;
    if (!matches(request.headers.authorization)) {
      throw await failures.failed(request.ip, new ApiError(401, 'Unauthorized request, invalid admin token.'));
    }
  };
}
