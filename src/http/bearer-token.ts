import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A check of `Authorization: Bearer <token>` against a configured token (the admin API's
 * ADMIN_TOKEN, the metrics scrape's METRICS_TOKEN). Both sides are hashed first so the
 * constant-time comparison sees equal lengths; the scheme is case-insensitive (RFC 9110 §11.1).
 */
export function bearerMatcher(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const match = /^Bearer +(.+?) *$/i.exec(authorization ?? '');
    const presented = createHash('sha256').update(match?.[1] ?? '').digest();
    // Compared even without a match, so a malformed header takes as long as a wrong token.
    return timingSafeEqual(presented, expected) && match !== null;
  };
}
