import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signBody } from '../../src/transports/http/signature.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/contract.ts';
import { redisEnv } from '../helpers/redis-env.ts';

export const BOREALIS_SECRET = 'borealis-ingest-secret-of-the-ops-tests';

/**
 * What the service processes of one test share: a DATA_DIR (one SQLite file, WAL), a Redis, a
 * queue prefix and SECRET_KEY. `env(extra)` gives a process's environment; `store()` opens the
 * same SQLite file in the test process, to check what the processes stored.
 */
export interface Deployment {
  dataDir: string;
  env(extra?: Record<string, string>): Record<string, string>;
  config(extra?: Record<string, string>): Config;
  store(): Promise<Store>;
  cleanup(): void;
}

export function deployment(redisUrl: string, shared: Record<string, string> = {}): Deployment {
  const dataDir = mkdtempSync(join(tmpdir(), 'cvd-ops-'));
  const base: Record<string, string> = {
    DATA_DIR: dataDir,
    ...redisEnv(redisUrl),
    QUEUE_PREFIX: `ops${randomUUID().slice(0, 8)}`,
    SECRET_KEY: randomBytes(32).toString('base64url'),
    ADMIN_TOKEN: 'ops-admin-token-0001',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DEMO_SEED: 'false',
    SIMULATOR: 'off',
    MQTT_PORT: '0',
    INGEST_SECRET_BOREALIS: BOREALIS_SECRET,
    PIPELINE_BATCH_MAX_WAIT_MS: '5',
    ...shared,
  };
  return {
    dataDir,
    env: (extra = {}) => ({ ...base, ...extra }),
    config: (extra = {}) => loadConfig({ ...base, ...extra }),
    store: () => openStore({ MONGO_URL: undefined, MONGO_DB: 'cvd', DATA_DIR: dataDir }),
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/**
 * A Borealis status record with one reading of three channels at `capturedAtS`: three data
 * points (mileage, vehiclespeed, batteryvoltage), with their own dedup keys per (VIN, time).
 */
export function borealisRecord(vin: string, capturedAtS: number): Record<string, unknown> {
  return {
    recordType: 'vehicle-status',
    vehicle: { vinNumber: vin, modelCode: 'AURORA-HYB' },
    readings: [
      {
        capturedAt: capturedAtS,
        samples: [
          { channel: 'ODOMETER', value: 7000 + capturedAtS / 1000, uom: 'mi' },
          { channel: 'SPEED', value: 30, uom: 'mph' },
          { channel: 'BATTERY_12V', value: 12.5, uom: 'V' },
        ],
      },
    ],
  };
}
export const POINTS_PER_BOREALIS_RECORD = 3;

/** A signed HTTP ingest request of these records, as Borealis sends it. */
export function borealisRequest(records: unknown[]): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ batchId: randomUUID(), records });
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-borealis-signature': signBody(BOREALIS_SECRET, Math.floor(Date.now() / 1000), body) },
  };
}
