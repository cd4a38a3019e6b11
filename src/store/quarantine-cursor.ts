/**
 * The opaque cursor of a quarantine page, shared by both engines. Pages go newest failure
 * first; (lastFailedAt, id) is unique, so the last entry returned is a complete keyset position.
 */
const PREFIX = 'q1:';

export function encodeQuarantineCursor(lastFailedAt: string, id: string): string {
  return Buffer.from(`${PREFIX}${lastFailedAt}|${id}`, 'utf8').toString('base64url');
}

/** Throws a RangeError for a cursor we never made. */
export function decodeQuarantineCursor(cursor: string): { lastFailedAt: string; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const sep = text.indexOf('|');
  if (!text.startsWith(PREFIX) || sep < 0) throw new RangeError('invalid quarantine cursor');
  return { lastFailedAt: text.slice(PREFIX.length, sep), id: text.slice(sep + 1) };
}

export function checkQuarantineLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new RangeError(`quarantine limit must be an integer from 1 to 1000, got ${limit}`);
  }
}
