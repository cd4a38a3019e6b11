/**
 * The opaque cursors of vehicle pages, shared by both engines so a cursor means the same thing
 * whichever engine serves it. A subscription's vehicles go by (createdAt, vin), unique within
 * the subscription; the activated vehicles of one manufacturer go by (vin, subscriptionId),
 * unique in the table. The last row returned is therefore a complete keyset position.
 */
const SUBSCRIPTION = 'v1:';
const ACTIVATED = 'a1:';

const encode = (prefix: string, a: string, b: string) => Buffer.from(`${prefix}${a}|${b}`, 'utf8').toString('base64url');

function decode(prefix: string, cursor: string, what: string): [string, string] {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const sep = text.indexOf('|');
  if (!text.startsWith(prefix) || sep < 0) throw new RangeError(`invalid ${what} cursor`);
  return [text.slice(prefix.length, sep), text.slice(sep + 1)];
}

export function encodeSubscriptionVehicleCursor(createdAt: string, vin: string): string {
  return encode(SUBSCRIPTION, createdAt, vin);
}

/** Throws a RangeError for a cursor we never made. */
export function decodeSubscriptionVehicleCursor(cursor: string): { createdAt: string; vin: string } {
  const [createdAt, vin] = decode(SUBSCRIPTION, cursor, 'vehicle');
  return { createdAt, vin };
}

export function encodeActivatedVehicleCursor(vin: string, subscriptionId: string): string {
  return encode(ACTIVATED, vin, subscriptionId);
}

/** Throws a RangeError for a cursor we never made. */
export function decodeActivatedVehicleCursor(cursor: string): { vin: string; subscriptionId: string } {
  const [vin, subscriptionId] = decode(ACTIVATED, cursor, 'activated-vehicle');
  return { vin, subscriptionId };
}

/** The page size rule of every list (1..1000), checked the same way by both engines. */
export function checkVehicleLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new RangeError(`vehicle page limit must be an integer from 1 to 1000, got ${limit}`);
  }
}
