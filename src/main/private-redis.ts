import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { canConnect, freePort } from './free-port.ts';
import { DataDirInUseError, PIDFILE, stopStaleRedis } from './private-redis-pidfile.ts';

export { DataDirInUseError };

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
  /** The redis-server running now (another one after a restart by `watch`). */
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** Where a watched redis-server's death and restarts are reported (the service's logger fits). */
export interface PrivateRedisLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
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
  /**
   * Watch the server after the start: a death (other than by stop()) is logged and the server
   * started again on the same port and data. For the service's own Redis, which nobody else
   * would restart; tests that kill and restart Redis themselves leave it off.
   */
  watch?: { logger: PrivateRedisLog };
}

/** How many restarts may fail in a row (or die soon after) before the watcher gives up. */
const MAX_RESTARTS_IN_ROW = 5;
/** First wait before a restart, doubling with each one in a row: 0.25 s, 0.5 s, 1 s, 2 s, 4 s. */
const RESTART_DELAY_MS = 250;
/** A restarted server that stays up this long resets the count of restarts in a row. */
const STABLE_AFTER_MS = 30_000;
/** How much of redis-server's own output is kept for an error message. */
const OUTPUT_LINES = 20;

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
  let stopping = false;
  const first = await launch(args, port, detached, () => {});
  let child = first.child;
  const killOnExit = () => child.kill('SIGTERM');
  if (detached) process.once('exit', killOnExit);
  if (opts.watch) {
    watchChild(opts.watch.logger, port, first, {
      stopping: () => stopping,
      relaunch: () => launch(args, port, detached, (c) => (child = c)),
    });
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      stopping = true;
      process.removeListener('exit', killOnExit);
      const current = child;
      if (current.exitCode !== null || current.signalCode !== null) return resolve();
      current.once('exit', () => resolve());
      current.kill('SIGTERM');
    });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get process() {
      return child;
    },
    stop,
  };
}

/**
 * Spawns redis-server and waits until it answers on the port. `spawned` learns of the child at
 * once, so a stop() during the wait stops it. redis-server logs to stdout: the last lines of
 * its output are kept, and a start that fails says why in redis-server's own words.
 */
async function launch(args: string[], port: number, detached: boolean, spawned: (c: ChildProcess) => void): Promise<Launched> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], detached });
  spawned(child);
  const output = outputTail(OUTPUT_LINES);
  // Read to the end in any case: a full pipe would block redis-server's logging.
  child.stdout?.on('data', output.add);
  child.stderr?.on('data', output.add);
  await waitForPort(port, child, output.text);
  // From here on only what it says after the start: the lines before a later death.
  output.clear();
  return { child, output: output.text };
}

interface Launched {
  child: ChildProcess;
  /** The last lines redis-server wrote since it answered. */
  output: () => string;
}

interface WatchHooks {
  stopping(): boolean;
  relaunch(): Promise<Launched>;
}

/**
 * Nobody else restarts the service's own Redis: without this, a redis-server that died (OOM
 * killer, kill -9) left the process alive, not ready and refusing ingest for ever. A death is
 * logged once; restarts follow with a doubling delay, and after MAX_RESTARTS_IN_ROW failures
 * in a row (failed starts, or deaths before STABLE_AFTER_MS) the watcher gives up and says so.
 */
function watchChild(logger: PrivateRedisLog, port: number, first: Launched, hooks: WatchHooks): void {
  let inRow = 0;
  let stable: NodeJS.Timeout | undefined;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

  const restart = async (): Promise<void> => {
    while (inRow < MAX_RESTARTS_IN_ROW) {
      inRow++;
      await sleep(RESTART_DELAY_MS * 2 ** (inRow - 1));
      if (hooks.stopping()) return;
      try {
        const next = await hooks.relaunch();
        if (hooks.stopping()) return;
        logger.info({ port, redisPid: next.child.pid, attempt: inRow }, 'private redis-server restarted');
        observe(next);
        stable = setTimeout(() => (inRow = 0), STABLE_AFTER_MS).unref();
        return;
      } catch (err) {
        // A stop() during the start kills the new child; that is no failure to report.
        if (hooks.stopping()) return;
        logger.warn({ port, attempt: inRow, err: (err as Error).message }, 'private redis-server restart failed');
      }
    }
    logger.error({ port, attempts: inRow }, 'private redis-server could not be restarted; giving up (the process stays not ready)');
  };

  const observe = ({ child, output }: Launched) => {
    child.once('exit', (exitCode, signal) => {
      if (hooks.stopping()) return;
      clearTimeout(stable);
      // exitCode, not code: `code` is a redacted log field.
      const said = output();
      logger.error({ port, redisPid: child.pid, exitCode, signal, ...(said ? { output: said } : {}) }, 'private redis-server exited; restarting it');
      void restart();
    });
  };
  observe(first);
}

/** The last `max` non-empty lines written to it (a partial last line included). */
function outputTail(max: number): { add: (chunk: Buffer) => void; text: () => string; clear: () => void } {
  const lines: string[] = [];
  let partial = '';
  return {
    clear() {
      lines.length = 0;
      partial = '';
    },
    add(chunk) {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) if (l.trim() !== '') lines.push(l.trimEnd());
      if (lines.length > max) lines.splice(0, lines.length - max);
    },
    text: () => [...lines, ...(partial.trim() !== '' ? [partial] : [])].slice(-max).join('\n'),
  };
}

/**
 * Waits until OUR redis-server answers on the port. Something else may listen there: the port
 * was only free a moment ago, or (a restart on the same port) another process took it meanwhile.
 * So an answer counts only when the server's INFO names the child's process id; a child that
 * could not bind exits, and that is reported with the end of its output.
 */
async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.exitCode !== null ? `code ${child.exitCode}` : `signal ${child.signalCode}`;
      throw new Error(`redis-server exited at start (${how}):\n${await lastOutput(child, output)}`);
    }
    if ((await canConnect(port)) && (await redisPid(port)) === child.pid) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not listen on port ${port} within 10 s:\n${output()}`);
}

/** Its output once its pipes are closed (at most a moment after it exited), so nothing is cut. */
async function lastOutput(child: ChildProcess, output: () => string): Promise<string> {
  const open = [child.stdout, child.stderr].filter((s) => s && !s.readableEnded && !s.destroyed);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(open.map((s) => new Promise((r) => s!.once('close', r)))),
    new Promise((r) => (timer = setTimeout(r, 500))),
  ]);
  clearTimeout(timer);
  return output();
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
