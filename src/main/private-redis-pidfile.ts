import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The private redis-server's pidfile in its data directory: how a start recognises a server
 * that a killed service left running (stopped), and one that another running service still
 * uses (the start fails).
 */
export const PIDFILE = 'redis.pid';

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
export async function stopStaleRedis(pidfile: string): Promise<void> {
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
