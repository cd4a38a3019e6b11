import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Resident memory of a process in MiB (Linux /proc, else `ps`); NaN once it is gone. */
export function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // Not Linux, or gone: ask ps.
  }
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** `--name value` and `--name=value` command-line options. */
export function cliOptions(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out.set(a.slice(2, eq), a.slice(eq + 1));
    else out.set(a.slice(2), argv[i + 1] && !argv[i + 1]!.startsWith('--') ? argv[++i]! : 'true');
  }
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** "12.3" with one decimal, right-aligned to `width`. */
export const fmt = (n: number, width = 7, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-').padStart(width);
