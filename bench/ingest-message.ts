import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The benchmark's raw message: the virtual manufacturer's realistic full telemetry message of an
 * electric car (every signal it sends at once: 30 catalog items), with a VIN and a sample time
 * set per message. The sample time is the publish time, so a stored point's own timestamp tells
 * its publish-to-stored latency, and every message has its own dedup key.
 */
const template = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'adapters', 'virtual', 'fixtures', 'virtual.telemetry.electric.json'), 'utf8'),
) as Record<string, unknown>;

export const ITEMS_PER_MESSAGE = 30;
export const BENCH_VIN_COUNT = 2000;

export function benchVin(i: number): string {
  return `V1RTUALV1N${String(i % BENCH_VIN_COUNT).padStart(7, '0')}`;
}

/**
 * The message's JSON text around its three per-message fields, cut once: the load generator
 * shares the two cores with the service, and serializing the whole template for every message
 * was a fifth of its CPU time. The text is the same as JSON.stringify({ ...template, vin,
 * messageId, sampledAt }) (the fields keep their places in the template).
 */
const SLOTS = { vin: '@vin@', messageId: '@messageId@', sampledAt: '@sampledAt@' } as const;
const pieces = JSON.stringify({ ...template, ...SLOTS }).split(/"(@vin@|@messageId@|@sampledAt@)"/);

export function benchMessage(vin: string, sampledAtMs: number): string {
  const sampledAt = new Date(sampledAtMs).toISOString();
  const value = { [SLOTS.vin]: vin, [SLOTS.messageId]: `${vin}:${sampledAt}`, [SLOTS.sampledAt]: sampledAt } as Record<string, string>;
  let text = '';
  // split with a capture group: the text between the slots at even places, the slot names at odd ones.
  for (let i = 0; i < pieces.length; i++) text += i % 2 === 0 ? pieces[i] : JSON.stringify(value[pieces[i]!]);
  return text;
}
