import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Catalog } from '../catalog/catalog.ts';
import { loadCatalog } from '../catalog/load.ts';
import { systemClock, type Clock } from '../clock.ts';
import { applyEnvFile, ConfigError, loadConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import { defaultPaths } from '../paths.ts';
import type { Paths } from '../paths.ts';
import type { Store } from '../store/contract.ts';
import { openCliStore } from './store.ts';
import { UsageError, type CliArgs, type CliCommand, type CliContext } from './command.ts';
import { commandHelp, generalHelp } from './help.ts';
import { findCommand, loadCommands, normalizeName } from './registry.ts';
import { closest, suggestion } from './did-you-mean.ts';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  paths?: Paths;
  /** Stops a long-running command (`mappings test --watch`); main.ts aborts it on SIGINT. */
  signal?: AbortSignal;
}

/** Exit codes (sysexits-style where one fits). */
export const EXIT = { ok: 0, failed: 1, usage: 2, config: 78 } as const;

function parse(command: CliCommand, rest: string[]): CliArgs {
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(command.options ?? {})) {
    options[name] = { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (err) {
    // parseArgs names the offending option in its message.
    throw new UsageError(err instanceof Error ? err.message : String(err), command);
  }
  const args: CliArgs = { values: parsed.values as CliArgs['values'], positionals: parsed.positionals };
  if (args.values['help'] === true) return args;
  const p = command.positionals ?? { synopsis: '', min: 0, max: 0 };
  if (args.positionals.length < p.min) throw new UsageError(`missing argument ${p.synopsis}`, command);
  if (args.positionals.length > p.max) throw new UsageError(`unexpected argument "${args.positionals[p.max]}"`, command);
  return args;
}

/**
 * Runs one CLI invocation and returns its exit code. Results go to stdout as JSON, errors to
 * stderr as one clear line. Usage errors (unknown command or option, a missing or invalid
 * value) exit with 2; a failed operation (e.g. an unknown consumer) with 1.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const commands = await loadCommands();
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    (argv.length === 0 ? io.stderr : io.stdout)(generalHelp(commands));
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  const found = findCommand(commands, argv);
  if (!found) {
    io.stderr(`error: ${unknownCommand(commands, argv)}\n\n${generalHelp(commands)}`);
    return EXIT.usage;
  }
  let store: Store | undefined;
  try {
    const args = parse(found.command, found.rest);
    if (args.values['help'] === true) {
      io.stdout(commandHelp(found.command));
      return EXIT.ok;
    }
    // The same settings as the service: .env first (variables set in the environment win).
    applyEnvFile(io.env);
    const config = loadConfig(io.env);
    const paths = io.paths ?? defaultPaths();
    let catalog: Catalog | undefined;
    const ctx: CliContext = {
      config,
      paths,
      clock: io.clock ?? systemClock,
      store: async () => (store ??= await openCliStore(config, (text) => io.stderr(`${text}\n`))),
      catalog: async () => (catalog ??= await loadCatalog(paths.catalog)),
      note: (text) => io.stderr(`${text}\n`),
      exitCode: EXIT.ok,
      signal: io.signal ?? new AbortController().signal,
    };
    const result = await found.command.run(ctx, args);
    if (result !== undefined) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return ctx.exitCode;
  } catch (err) {
    return report(err, found.command, io);
  } finally {
    await store?.close();
  }
}

/** The unknown command the user typed, with the commands a typo or two away from it. */
function unknownCommand(commands: CliCommand[], argv: string[]): string {
  const words = [...normalizeName(argv[0] ?? '').split(' '), ...argv.slice(1)];
  // Each command against as many typed words as it has: "mapings test" is near "mappings test".
  const near = commands.map((c) => normalizeName(c.name)).filter((name) => closest(words.slice(0, name.split(' ').length).join(' '), [name]).length > 0);
  return `unknown command "${words.slice(0, 2).join(' ')}"${suggestion(near.slice(0, 3))}`;
}

function report(err: unknown, command: CliCommand, io: CliIo): number {
  if (err instanceof UsageError) {
    io.stderr(`error: ${err.message}\n\n${commandHelp(err.command ?? command)}`);
    return EXIT.usage;
  }
  if (err instanceof ConfigError) {
    io.stderr(`error: ${err.message}\n`);
    return EXIT.config;
  }
  if (err instanceof ApiError) {
    // The same checks as the admin API: a 400 is a bad value the user typed.
    io.stderr(`error: ${err.reasonText}\n`);
    return err.statusCode === 400 ? EXIT.usage : EXIT.failed;
  }
  io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  return EXIT.failed;
}
