import type { FastifyRequest } from 'fastify';
import { timingSafeEqual, createHash } from 'node:crypto';
import { ApiError } from '../errors.ts';

/**
 * onRequest hook for /admin/v1/*: `Authorization: Bearer $ADMIN_TOKEN`, checked before the body
 * is read. Both sides are hashed first so the constant-time comparison sees equal lengths.
 * Disabled (404) when ADMIN_TOKEN is unset.
 */
export function requireAdmin(adminToken: string | undefined) {
  const expected = adminToken ? createHash('sha256').update(adminToken).digest() : undefined;
  return async function checkAdmin(request: FastifyRequest): Promise<void> {
    if (!expected) throw new ApiError(404, 'The admin API is disabled: set ADMIN_TOKEN to enable it.');
    const auth = request.headers.authorization ?? '';
    // The scheme is case-insensitive (RFC 9110 §11.1).
    const match = /^Bearer +(.+?) *$/i.exec(auth);
    const presented = createHash('sha256').update(match?.[1] ?? '').digest();
    if (!match || !timingSafeEqual(presented, expected)) throw new ApiError(401, 'Unauthorized request, invalid admin token.');
  };
}
