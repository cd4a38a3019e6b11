/**
 * The opaque cursor of a data-point history page, shared by both store engines so a cursor
 * means the same thing whichever engine serves it. History pages go newest to oldest and
 * (vin, item, timestampMs) is unique, so the last timestamp returned is a complete keyset
 * position: the next page holds the points strictly older than it.
 */
const PREFIX = 'h1:';

export function encodeHistoryCursor(lastTimestampMs: number): string {
  return Buffer.from(`${PREFIX}${lastTimestampMs}`, 'utf8').toString('base64url');
}

/** The timestamp the next page must stay below. Throws a RangeError for a cursor we never made. */
export function decodeHistoryCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const value = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new RangeError('invalid history cursor');
  return value;
}

/** The page size rule of the contract (1..1000), checked the same way by both engines. */
export function checkHistoryLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new RangeError(`history limit must be an integer from 1 to 1000, got ${limit}`);
  }
}
