import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, startPrivateRedis } from '../../src/runtime/private-redis.ts';

describe('the private redis-server of npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cvd-redis-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('persists in DATA_DIR, refuses a second service on the same directory, and starts again after a stop', async () => {
    const first = await startPrivateRedis({ dir });
    expect(existsSync(join(dir, 'redis.pid'))).toBe(true);
    const client = new Redis(first.url);
    await client.set('k', 'kept');
    await expect(startPrivateRedis({ dir })).rejects.toBeInstanceOf(DataDirInUseError);
    await client.quit();
    await first.stop();

    const again = await startPrivateRedis({ dir });
    const reader = new Redis(again.url);
    expect(await reader.get('k')).toBe('kept');
    await reader.quit();
    await again.stop();
  });
});
