import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import { ManualClock, type Clock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { closeServices, createServices } from '../../src/main/create-services.ts';
import { loadWing, type Wing } from '../../src/main/wing.ts';
import { defaultPaths } from '../../src/paths.ts';
import type { Paths } from '../../src/paths.ts';
import type { Services } from '../../src/services.ts';
import type { Store } from '../../src/store/contract.ts';
import { openStore } from '../../src/store/open-store.ts';
import { redisAddressOf } from '../../src/queues/redis.ts';
import { redisEnv } from './redis-env.ts';

export interface TestServices {
  services: Services;
  /** The virtual wing, loaded as the service loads it (SIMULATOR=on, the default here); null with SIMULATOR=off. */
  wing: Wing | null;
  /** Every log line written so far (JSON), for asserting what must never be logged. */
  logs: string[];
  dataDir: string;
  cleanup(): Promise<void>;
}

/**
 * Real services for a test: the real SQLite store in a fresh temp dir, the suite's real Redis
 * with a unique key prefix, and a captured logger. Pass a ManualClock to control time.
 */
export async function createTestServices(
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    paths?: Paths;
    /** Wraps the engine's store under everything else (race tests put scheduling points there). */
    wrapStore?: (store: Store) => Store;
    /** A Redis of the service's own, as `npm start` runs it without REDIS_URL: REDIS_URL stays unset. */
    privateRedisUrl?: string;
  } = {},
): Promise<TestServices> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cvd-test-'));
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    // The suite's Redis, unless the test brings its own (a private one, or REDIS_URL in `env`).
    ...(opts.privateRedisUrl !== undefined ? { REDIS_URL: '' } : opts.env?.REDIS_URL ? { REDIS_CLUSTER_NODES: '' } : redisEnv(inject('redisUrl'))),
    QUEUE_PREFIX: `t${randomUUID().slice(0, 8)}`,
    ADMIN_TOKEN: 'test-admin-token',
    LOG_LEVEL: 'debug',
    // The virtual wing is loaded, as in the try-out: the simulated authorization servers and
    // the virtual manufacturer's own vehicles (its simulator runs only where a test starts it).
    SIMULATOR: 'on',
    DEMO_SEED: 'false',
    PORT: '0',
    // Tests send hundreds of portal requests from 127.0.0.1 without moving the clock; the
    // portal limit itself is tested with its own small values (test/consent/portal-limit.test.ts).
    RATE_LIMIT_PORTAL_MAX: '1000000',
    // Likewise hundreds of bad keys and tokens (the 401 cases): the failed-authentication limit
    // is tested with its own values (test/rate-limit/auth-failures.test.ts).
    RATE_LIMIT_AUTH_FAILURE_MAX: '1000000',
    // The test clock starts on 2026-01-01 while the raw fixtures are stamped 2026-11-25: data
    // from "the future" is the norm here. The limit itself is tested with its real value
    // (test/pipeline/future-time.test.ts).
    INGEST_MAX_FUTURE_S: '315360000',
    ...opts.env,
  };
  const config: Config = loadConfig(env);
  const wing = await loadWing(config, { env, paths: opts.paths ?? defaultPaths() });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger({ level: config.LOG_LEVEL, pretty: false, destination });
  const services = await createServices(config, logger, opts.privateRedisUrl ?? redisAddressOf(config)!, {
    clock: opts.clock ?? new ManualClock(),
    wing,
    ...(opts.paths ? { paths: opts.paths } : {}),
    ...(opts.wrapStore ? { store: opts.wrapStore(await openStore(config)) } : {}),
  });
  // Connected before the test starts: the limiters give Redis 250 ms before they fail open, and a
  // cluster's first connection (the seeds, then the slot map) can take longer on a busy machine.
  if (opts.privateRedisUrl === undefined && !opts.env?.REDIS_URL) await services.redis.ping();
  return {
    services,
    wing,
    logs,
    dataDir,
    async cleanup() {
      await closeServices(services);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
