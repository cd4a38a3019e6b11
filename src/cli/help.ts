import type { CliCommand } from './command.ts';
import { normalizeName } from './registry.ts';

/** `npm run cli -- --help`: every command with its summary. */
export function generalHelp(commands: CliCommand[]): string {
  const width = Math.max(...commands.map((c) => normalizeName(c.name).length));
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Uses the same configuration as the service (DATA_DIR or MONGO_URL); Redis is not needed.',
    'Results are JSON on stdout. Exit codes: 0 done, 1 failed (e.g. not found), 2 usage error,',
    '78 invalid configuration.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${normalizeName(c.name).padEnd(width)}  ${c.summary}`),
    '',
    'Run `npm run cli -- <command> --help` for its options.',
    '',
  ].join('\n');
}

/** `<command> --help`: its synopsis and options. */
export function commandHelp(c: CliCommand): string {
  const options = Object.entries(c.options ?? {});
  const synopsis = [normalizeName(c.name), c.positionals?.synopsis, options.length > 0 ? '[options]' : undefined].filter(Boolean).join(' ');
  const lines = options.map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ' <value>' : ''}`;
    return `  ${flag.padEnd(24)}  ${o.description}${o.multiple ? ' (repeatable)' : ''}`;
  });
  return [`Usage: npm run cli -- ${synopsis}`, '', c.summary, ...(lines.length > 0 ? ['', 'Options:', ...lines] : []), ''].join('\n');
}
