import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { canConnect, freePort } from './free-port.ts';

export class RedisBinaryMissingError extends Error {
  constructor() {
    super(
      'REDIS_URL is not set and no redis-server binary was found on PATH. ' +
        'Install it (Debian/Ubuntu: `sudo apt-get install redis-server`; macOS: `brew install redis`) ' +
        'or point REDIS_URL at a running Redis 6.2 or newer.',
    );
    this.name = 'RedisBinaryMissingError';
  }
}

export interface PrivateRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** Keep data in this directory with an append-only file; in memory only when omitted. */
  dir?: string;
  port?: number;
  /**
   * With `dir`: when the append-only file is fsynced. `everysec` (default, BullMQ's advice)
   * may lose the last second of writes on a machine crash; `always` loses none, at a cost.
   */
  appendfsync?: 'always' | 'everysec';
  /** Extra redis-server arguments (tests: e.g. another maxmemory-policy). */
  args?: string[];
}

/**
 * Starts a redis-server of our own on a free port, for when no REDIS_URL is given. With a
 * `dir` it persists (AOF, fsync every second) so queued jobs survive a restart. It uses
 * `noeviction`, the only policy under which BullMQ is correct.
 */
export async function startPrivateRedis(opts: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  if (spawnSync('redis-server', ['--version']).error) throw new RedisBinaryMissingError();
  const port = opts.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--maxmemory-policy', 'noeviction', '--save', ''];
  if (opts.dir) {
    mkdirSync(opts.dir, { recursive: true });
    args.push('--dir', opts.dir, '--appendonly', 'yes', '--appendfsync', opts.appendfsync ?? 'everysec');
  } else {
    args.push('--appendonly', 'no');
  }
  args.push(...(opts.args ?? []));
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitForPort(port, child, () => stderr);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url: `redis://127.0.0.1:${port}`, port, process: child, stop };
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited at start (code ${child.exitCode}): ${stderr()}`);
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not listen on port ${port} within 10 s`);
}
