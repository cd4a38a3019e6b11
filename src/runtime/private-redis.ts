import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
    // Absolute: redis-server changes into --dir before it writes the pidfile.
    const dir = resolve(opts.dir);
    mkdirSync(dir, { recursive: true });
    await stopStaleRedis(join(dir, PIDFILE));
    args.push('--dir', dir, '--pidfile', join(dir, PIDFILE));
    args.push('--appendonly', 'yes', '--appendfsync', opts.appendfsync ?? 'everysec');
  } else {
    args.push('--appendonly', 'no');
  }
  args.push(...(opts.args ?? []));
  // The service's own persistent Redis runs in its own process group: a Ctrl-C in the terminal
  // then reaches only the service, which drains its workers and stops Redis last. It is stopped
  // when this process exits, and a stale one left by a killed service is stopped at next start.
  const detached = opts.dir !== undefined;
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'], detached });
  const killOnExit = () => child.kill('SIGTERM');
  if (detached) process.once('exit', killOnExit);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitForPort(port, child, () => stderr);
  const stop = () =>
    new Promise<void>((resolve) => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url: `redis://127.0.0.1:${port}`, port, process: child, stop };
}

/**
 * Waits until OUR redis-server answers on the port. Something else may listen there: the port
 * was only free a moment ago, or (a restart on the same port) another process took it meanwhile.
 * So an answer counts only when the server's INFO names the child's process id; a child that
 * could not bind exits, and that is reported.
 */
async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited at start (code ${child.exitCode}): ${stderr()}`);
    if ((await canConnect(port)) && (await redisPid(port)) === child.pid) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not listen on port ${port} within 10 s`);
}

/** The process id in the INFO of whatever Redis answers on the port, or null (no answer, not Redis). */
function redisPid(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let reply = '';
    const done = (pid: number | null) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(1000, () => done(null));
    socket.once('error', () => done(null));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (d: Buffer) => {
      reply += d.toString('latin1');
      const m = /\bprocess_id:(\d+)\r\n/.exec(reply);
      if (m) done(Number(m[1]));
      else if (reply.startsWith('-') && reply.includes('\r\n')) done(null);
    });
    socket.once('end', () => done(null));
  });
}

const PIDFILE = 'redis.pid';

/** Thrown when another running service already uses this data directory's Redis. */
export class DataDirInUseError extends Error {
  constructor(dir: string, ownerPid: number) {
    super(`DATA_DIR ${dir} is in use by another running service (process ${ownerPid}); stop it or use another DATA_DIR.`);
    this.name = 'DataDirInUseError';
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function parentOf(pid: number): number {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/**
 * A redis-server that a killed service left running on this data directory is stopped (its
 * parent, the service, is gone); one whose service still runs is left alone and the start fails.
 */
async function stopStaleRedis(pidfile: string): Promise<void> {
  if (!existsSync(pidfile)) return;
  const pid = Number(readFileSync(pidfile, 'utf8').trim());
  const isRedis = () => Number.isInteger(pid) && pid > 0 && cmdline(pid).includes('redis-server');
  if (isRedis()) {
    const owner = parentOf(pid);
    if (owner > 1 && cmdline(owner).includes('node')) throw new DataDirInUseError(join(pidfile, '..'), owner);
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (isRedis() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }
  rmSync(pidfile, { force: true });
}
