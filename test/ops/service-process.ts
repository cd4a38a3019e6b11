import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../helpers/free-port.ts';
import { defaultPaths } from '../../src/paths.ts';
import type { Deployment } from './service-env.ts';

export const ROOT = defaultPaths().root;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * One service process, started as an operator would: `npm run <script>` (the documented
 * command, e.g. start:api) or, where a test needs the PID of the process itself (to SIGKILL it
 * or read its exit code), `node --import tsx src/server.ts`, which is what the npm scripts run.
 */
export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Every line it wrote (JSON log lines and anything else), for diagnosis and assertions. */
  lines: string[];
  exited: Promise<Exit>;
  /** The PID of the Node process running src/server.ts (the first log line carries it). */
  serverPid(): Promise<number>;
  /** Sends a signal to the process group (npm, the shell and the service alike). */
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<Exit>;
}

export interface StartOptions {
  /** `npm run <script>`; when omitted, `node --import tsx src/server.ts`. */
  script?: string;
  /** Node's arguments instead of `--import tsx src/server.ts` (e.g. the compiled server). */
  nodeArgs?: string[];
  env: Record<string, string>;
  /** Print its output as it comes (debugging). */
  echo?: boolean;
}

export function startService(name: string, opts: StartOptions): ServiceProcess {
  const env = { ...process.env, ...opts.env };
  // The settings come from this env alone, not from the test runner's own, nor from a
  // developer's .env in ROOT (the service reads that at start unless ENV_FILE is empty).
  delete env.NODE_OPTIONS;
  env.ENV_FILE = '';
  const child = opts.script
    ? spawn('npm', ['run', '--silent', opts.script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, opts.nodeArgs ?? ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString();
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      for (const l of parts) {
        lines.push(l);
        if (opts.echo) console.log(`[${name}] ${l}`);
      }
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => (gone = true));

  const signal = (sig: NodeJS.Signals) => {
    if (gone || child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // Already gone.
    }
  };
  return {
    name,
    child,
    lines,
    exited,
    async serverPid() {
      // Started as `node ... src/server.ts`: that process is the server itself.
      if (!opts.script && child.pid !== undefined) return child.pid;
      const deadline = Date.now() + 30_000;
      for (;;) {
        for (const l of lines) {
          const m = /"pid":(\d+)/.exec(l);
          if (m) return Number(m[1]);
        }
        if (gone || Date.now() > deadline) throw new Error(`${name}: no log line with a pid\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    signal,
    async stop(graceMs = 15_000) {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      // npm may leave before the service does: make sure nothing of the group stays behind.
      signal('SIGKILL');
      return exit;
    },
  };
}

/**
 * A worker process of deployment `d` with these ROLES on a free probe port, once its /ready
 * answers `readyStatus`. It joins `procs` before the wait, so the test's afterEach stops it
 * even when it never gets ready.
 */
export async function startWorker(
  d: Deployment,
  procs: ServiceProcess[],
  opts: { roles?: string; name?: string; readyStatus?: number; env?: Record<string, string> } = {},
): Promise<ServiceProcess> {
  const probe = await freePort();
  const worker = startService(opts.name ?? 'worker', { env: d.env({ ...opts.env, ROLES: opts.roles ?? 'pipeline', PROBE_PORT: String(probe) }) });
  procs.push(worker);
  await waitForHttp(`http://127.0.0.1:${probe}/ready`, opts.readyStatus ?? 200, 30_000, worker);
  return worker;
}

/** Polls an HTTP URL until it answers `status` (e.g. /ready → 200). */
export async function waitForHttp(url: string, status = 200, timeoutMs = 30_000, proc?: ServiceProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
      last = `${res.status} ${await res.text()}`;
      if (res.status === status) return;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(`${url} did not answer ${status} in ${timeoutMs} ms (last: ${last})${proc ? `\n${proc.name}:\n${proc.lines.slice(-30).join('\n')}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls until `check` returns a truthy value (then returns it). */
export async function eventually<T>(check: () => Promise<T> | T, what: string, timeoutMs = 20_000, everyMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
