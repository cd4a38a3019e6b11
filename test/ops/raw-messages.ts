import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawMessage, type RawMessage } from '../../src/domain/raw-message.ts';
import { ROOT } from './service-process.ts';

const template = JSON.parse(readFileSync(join(ROOT, 'adapters', 'virtual', 'fixtures', 'virtual.telemetry.electric.json'), 'utf8')) as Record<string, unknown>;

/** Data points one electric telemetry message yields (bench/ingest-message.ts counts the same). */
export const ITEMS_PER_TELEMETRY = 30;

/** The i-th message's VIN: spread over `vins` virtual vehicles. */
export function telemetryVin(i: number, vins = 50): string {
  return `V1RTUALV1N${String(i % vins).padStart(7, '0')}`;
}

/**
 * The virtual manufacturer's full telemetry message (electric car), number i: its own VIN and
 * sample time, so every message has its own dedup keys and none collides with another.
 */
export function telemetryBody(i: number, baseMs = Date.parse('2026-11-25T00:00:00.000Z'), vins = 50): { vin: string; topic: string; body: string } {
  const vin = telemetryVin(i, vins);
  const sampledAt = new Date(baseMs + i * 1000).toISOString();
  return {
    vin,
    topic: `virtual/v1/${vin}/telemetry`,
    body: JSON.stringify({ ...template, vin, messageId: `${vin}:${sampledAt}`, sampledAt }),
  };
}

/** The same messages as the pipeline receives them from a transport. */
export function telemetryMessages(from: number, count: number, receivedAt = new Date().toISOString()): RawMessage[] {
  return Array.from({ length: count }, (_, k) => {
    const m = telemetryBody(from + k);
    return rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt, topic: m.topic }, m.body);
  });
}
