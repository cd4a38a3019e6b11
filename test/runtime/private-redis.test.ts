import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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

  it('never takes another server on its port for its own: a port taken meanwhile is an error', async () => {
    const other = await startPrivateRedis();
    try {
      // As when a restart on the same port finds it taken: the child cannot bind and exits.
      await expect(startPrivateRedis({ port: other.port })).rejects.toThrow(/redis-server exited at start/);
      // A plain TCP listener (not Redis) on the port is not mistaken for one either.
      const server = createServer((s) => s.end());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      await expect(startPrivateRedis({ port })).rejects.toThrow(/redis-server exited at start/);
      server.close();
    } finally {
      await other.stop();
    }
  });
});
