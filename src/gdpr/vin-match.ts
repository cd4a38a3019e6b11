import type { RawMessage } from '../domain/raw-message.ts';

/**
 * Whether a raw message mentions the VIN anywhere: in its bytes (decoded when they were kept
 * as base64) or its MQTT topic. Case-insensitive, because a manufacturer may send a VIN in
 * lower case and it is still the same vehicle. A message is the manufacturer's record of one
 * vehicle, so any mention makes it the VIN's data.
 */
export function messageMentionsVin(message: RawMessage, vin: string): boolean {
  const needle = vin.toUpperCase();
  const text = message.encoding === 'base64' ? Buffer.from(message.body, 'base64').toString('latin1') : message.body;
  return text.toUpperCase().includes(needle) || (message.topic ?? '').toUpperCase().includes(needle);
}
