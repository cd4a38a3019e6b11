import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/**
 * The parent's side of the bench children (ingest-worker.ts, ingest-publisher.ts): the child
 * sends one message once it is ready, then answers every `{ cmd: 'take' }` with what it counted
 * since the last one. `nodeArgs` go to node before tsx (e.g. --cpu-prof).
 */
export function forkChild(file: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<ChildProcess> {
  const c = fork(join(import.meta.dirname, file), [], { execArgv: ['--import', 'tsx', ...nodeArgs], env: { ...process.env, ...env }, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    c.once('message', () => resolve(c));
    c.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
}

/** What the child counted since the last take. */
export function takeCounts<T>(c: ChildProcess): Promise<T> {
  return new Promise((resolve) => {
    c.once('message', (m) => resolve(m as T));
    c.send({ cmd: 'take' });
  });
}
