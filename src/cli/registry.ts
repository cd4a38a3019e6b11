import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CliCommand } from './command.ts';

/** "mappings:dry-run" and "mappings dry-run" are one command. */
export function normalizeName(name: string): string {
  return name.replace(/:/g, ' ').trim();
}

/**
 * Every command of every file in src/cli/commands/ (.ts run through tsx, .js compiled in dist/) (each default-exports an array), sorted by
 * name. A duplicate name is a programming error and stops the CLI naming both files.
 */
export async function loadCommands(dir = join(import.meta.dirname, 'commands')): Promise<CliCommand[]> {
  const files = (await readdir(dir)).filter((f) => /\.[jt]s$/.test(f) && !/\.(test|d)\.ts$/.test(f)).sort();
  const byName = new Map<string, { command: CliCommand; file: string }>();
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: CliCommand[] };
    if (!Array.isArray(mod.default)) throw new Error(`src/cli/commands/${file} must default-export an array of commands`);
    for (const command of mod.default) {
      const key = normalizeName(command.name);
      const seen = byName.get(key);
      if (seen) throw new Error(`CLI command "${key}" is defined twice: in ${seen.file} and ${file}`);
      byName.set(key, { command, file });
    }
  }
  return [...byName.values()].map((v) => v.command).sort((a, b) => normalizeName(a.name).localeCompare(normalizeName(b.name)));
}

/** The command the arguments name (longest match first) and the arguments after its name. */
export function findCommand(commands: CliCommand[], argv: string[]): { command: CliCommand; rest: string[] } | undefined {
  const [first, ...others] = argv;
  if (first === undefined || first.startsWith('-')) return undefined;
  const words = [...normalizeName(first).split(' '), ...others];
  for (let n = Math.min(words.length, 3); n >= 1; n--) {
    const name = words.slice(0, n).join(' ');
    const command = commands.find((c) => normalizeName(c.name) === name);
    if (command) return { command, rest: words.slice(n) };
  }
  return undefined;
}
