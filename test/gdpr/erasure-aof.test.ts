import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseVehicleData } from '../../src/gdpr/erase.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

const VIN = 'V1RTUALV1N0000002';
const OTHER = 'V1RTUALV1N0000003';

/** Every byte of the files the private Redis keeps (the append-only files and their manifest). */
function redisFiles(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}

/**
 * An erased VIN must not stay readable on disk: after an erasure, the private Redis's append-only file still held the
 * VIN's pseudonymous keys (the SET that wrote them and the DEL that removed them) until Redis
 * rewrote it on its own schedule. The service's own Redis with AOF, as `npm start` runs it.
 */
describe('erasure with the private Redis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cvd-aof-'));
  let redis: PrivateRedis;
  let t: TestServices;
  beforeAll(async () => {
    redis = await startPrivateRedis({ dir, appendfsync: 'always' });
    t = await createTestServices({ privateRedisUrl: redis.url });
  });
  afterAll(async () => {
    await t.cleanup();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rewrites the append-only file: no key naming the erased VIN\'s pseudonym stays in it', async () => {
    const { secrets, config } = t.services;
    const sub = 'b7d4c2c0-0000-4000-8000-000000000001';
    const vehicle = secrets.pseudonym(VIN);
    // The per-vehicle rate-limit counters the delivery API keeps (src/rate-limit/limits.ts).
    await t.services.redis.set(`${config.QUEUE_PREFIX}:rl:{${sub}}:v:${vehicle}:1795600000`, '3');
    await t.services.redis.set(`${config.QUEUE_PREFIX}:rl:{${sub}}:v:${secrets.pseudonym(OTHER)}:1795600000`, '1');
    // The check means something only if the key reached the file.
    expect(redisFiles(dir)).toContain(vehicle);

    const receipt = await eraseVehicleData(t.services, VIN);
    expect(receipt.erased.cacheKeys).toBe(1);
    // Redis deletes the replaced files in the background, just after the rewrite ends.
    for (let i = 0; i < 100 && redisFiles(dir).includes(vehicle); i++) await new Promise((r) => setTimeout(r, 50));
    const files = redisFiles(dir);
    expect(files).not.toContain(vehicle);
    expect(files).toContain(secrets.pseudonym(OTHER));
  });
});
