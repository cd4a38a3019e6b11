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

export function benchMessage(vin: string, sampledAtMs: number): string {
  const sampledAt = new Date(sampledAtMs).toISOString();
  return JSON.stringify({ ...template, vin, messageId: `${vin}:${sampledAt}`, sampledAt });
}
