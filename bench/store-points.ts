/**
 * The data points of the store benchmarks: the virtual manufacturer's full electric telemetry
 * message (30 items) mapped once with the pipeline's own code, then copied per VIN and time
 * (each payload's own `timestamp` set to the point's time, as the mapping does), and a sparse
 * event item that only every SPARSE_EVERY-th message of a vehicle carries, in a message of its own.
 */
import { loadAdapterRegistry } from '../src/adapters/registry.ts';
import { loadCatalog } from '../src/catalog/load.ts';
import { rawMessage } from '../src/domain/raw-message.ts';
import { defaultPaths } from '../src/paths.ts';
import { analyse, toDataPoints } from '../src/pipeline/harmonize.ts';
import type { DataPoint } from '../src/store/contract.ts';
import { benchMessage } from './ingest-message.ts';

export const DENSE_ITEM = 'vehiclespeed';
export const SPARSE_ITEM = 'benchsparseevent';
export const SPARSE_EVERY = 10;
export const MESSAGE_INTERVAL_MS = 5000;

export function storeBenchVin(i: number): string {
  return `V1RTUALV1N${String(i).padStart(7, "0")}`;
}

export async function templatePoints(): Promise<DataPoint[]> {
  const paths = defaultPaths();
  const catalog = await loadCatalog(paths.catalog);
  const adapters = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
    mappingsDir: paths.mappings,
    engine: { compiler: true },
  });
  const virtual = adapters.get('virtual')!;
  const vin = storeBenchVin(0);
  const t = Date.parse('2026-01-01T00:00:00.000Z');
  const msg = rawMessage(
    { manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date(t).toISOString(), topic: `virtual/v1/${vin}/telemetry` },
    benchMessage(vin, t),
  );
  const analysis = await analyse(virtual, catalog, msg);
  if (analysis.failure) throw new Error(`the bench message does not map: ${analysis.failure.reason}`);
  return toDataPoints(virtual, analysis, msg);
}

/** One vehicle's message at `ms`: the template's points with this VIN and time. */
export function messagePoints(template: DataPoint[], vin: string, ms: number, seq: number): DataPoint[] {
  const iso = new Date(ms).toISOString();
  return template.map((p) => ({
    ...p,
    vin,
    timestampMs: ms,
    receivedAt: iso,
    payload: 'timestamp' in p.payload ? { ...p.payload, timestamp: iso, ...(typeof p.payload.value === 'number' ? { value: (p.payload.value as number) + (seq % 97) } : {}) } : p.payload,
  }));
}

export function sparsePoint(vin: string, ms: number): DataPoint {
  const iso = new Date(ms).toISOString();
  return { vin, item: SPARSE_ITEM, timestampMs: ms, payload: { value: true, timestamp: iso }, manufacturer: 'virtual', mappingVersion: 'events.jsonata@bench', receivedAt: iso };
}
