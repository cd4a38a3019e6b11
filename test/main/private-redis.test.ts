import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import { eventually } from '../ops/service-process.ts';

interface Logged {
  level: 'error' | 'warn' | 'info';
  obj: Record<string, unknown>;
  msg: string;
}

/** A logger that keeps what it is given. */
function captureLogger() {
  const lines: Logged[] = [];
  const at = (level: Logged['level']) => (obj: object, msg: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info') } };
}

/** A PING on a fresh connection that does not retry: true when Redis answers on the URL now. */
async function pings(url: string): Promise<boolean> {
  const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  c.on('error', () => {});
  try {
    await c.connect();
    return (await c.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    c.disconnect();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

  it("says why redis-server would not start: redis' own words are in the error", async () => {
    const bad = mkdtempSync(join(tmpdir(), 'cvd-redis-bad-'));
    try {
      mkdirSync(join(bad, 'appendonlydir'));
      writeFileSync(join(bad, 'appendonlydir', 'appendonly.aof.manifest'), 'garbage that is no manifest\n');
      const err = await startPrivateRedis({ dir: bad }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/redis-server exited at start \(code 1\)/);
      expect(err?.message).toContain('Invalid AOF manifest file format');
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  describe('watched after the start (the service runs it so)', () => {
    let redis: PrivateRedis | undefined;
    const dirs: string[] = [];
    const dataDir = () => {
      const d = mkdtempSync(join(tmpdir(), 'cvd-redis-watch-'));
      dirs.push(d);
      return d;
    };
    afterAll(async () => {
      await redis?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it('a redis-server killed with SIGKILL is logged once and started again on the same port and data; stop() does not restart it', async () => {
      const { lines, logger } = captureLogger();
      redis = await startPrivateRedis({ dir: dataDir(), appendfsync: 'always', watch: { logger } });
      const client = new Redis(redis.url);
      client.on('error', () => {});
      await client.set('k', 'kept');
      const firstPid = redis.process.pid;

      redis.process.kill('SIGKILL');
      await eventually(async () => redis!.process.pid !== firstPid && (await pings(redis!.url)), 'Redis answering again on the same URL', 15_000);
      expect(await client.get('k')).toBe('kept');
      const errors = lines.filter((l) => l.level === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.obj).toMatchObject({ signal: 'SIGKILL', port: redis.port });
      expect(errors[0]!.msg).toMatch(/redis-server/);
      client.disconnect();

      const secondPid = redis.process.pid;
      await redis.stop();
      await sleep(1500);
      expect(redis.process.pid).toBe(secondPid);
      expect(await pings(redis.url)).toBe(false);
      expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
      redis = undefined;
    }, 30_000);

    it('gives up after a few failed restarts in a row, and says so with redis-server\'s reason', async () => {
      const { lines, logger } = captureLogger();
      const d = dataDir();
      redis = await startPrivateRedis({ dir: d, watch: { logger } });
      const child = redis.process;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
      // Every restart now fails, as it would on a damaged append-only file.
      writeFileSync(join(d, 'appendonlydir', 'appendonly.aof.manifest'), 'garbage that is no manifest\n');
      const gaveUp = await eventually(() => lines.find((l) => l.level === 'error' && /giving up/.test(l.msg)), 'the give-up line', 25_000);
      expect(gaveUp.obj).toMatchObject({ port: redis.port });
      const failed = lines.filter((l) => l.level === 'warn');
      expect(failed.length).toBeGreaterThanOrEqual(2);
      expect(String(failed[0]!.obj.err)).toContain('Invalid AOF manifest file format');
      // And then it stays down: no further attempt.
      const count = lines.length;
      await sleep(1500);
      expect(lines.length).toBe(count);
      expect(await pings(redis.url)).toBe(false);
      await redis.stop();
      redis = undefined;
    }, 40_000);
  });
});
