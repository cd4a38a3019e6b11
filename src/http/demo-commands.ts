/**
 * The demo's shell commands, shared by the block the demo seed prints (src/main/demo-seed.ts)
 * and the demo callback page, which shows the next one. They read the key, subscription and
 * origin from the variables step 1 of the block exports, so one command fits every try-out.
 */

/** The variables step 1 of the demo block sets. */
export const AUTH_HEADERS = '-H "x-api-key: $CVD_API_KEY" -H "X-Subscription-Id: $CVD_SUBSCRIPTION_ID"';
export const JSON_HEADER = "-H 'content-type: application/json'";

/** Items worth asking for first, when the subscription has them; crashseverity changes with the fleet's own crashes. */
const SHOWCASE_ITEMS = ['mileage', 'fuellevel', 'geolocation', 'batteryvoltage', 'sochighlevel', 'crashseverity'];

/** Single-quoted for a POSIX shell. */
export function sq(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The pull of the showcase items of one vehicle; `lineBreak` goes between its headers and its body. */
export function pullCommand(vin: string, subscriptionItems: string[], lineBreak = ' '): string {
  const items = SHOWCASE_ITEMS.filter((i) => subscriptionItems.includes(i));
  const dataItems = items.length > 0 ? items : subscriptionItems.slice(0, 3);
  const body = JSON.stringify({ version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: vin } }], dataItems });
  return `curl -sS -X POST "$CVD_URL/delivery/v1/in-vehicle" ${AUTH_HEADERS}${lineBreak}${JSON_HEADER} -d ${sq(body)}`;
}
