import type { Catalog } from '../catalog/catalog.ts';
import type { Config } from '../config.ts';
import type { Paths } from '../paths.ts';
import type { Store } from '../store/contract.ts';
import type { Clock } from '../clock.ts';

/** One option of a command, as node:util parseArgs takes it, plus a line of help. */
export interface CliOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  description: string;
}

export interface CliArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/**
 * What a command gets: the configuration and lazily opened resources. Nothing here needs
 * Redis, the MQTT broker or the adapters, so the CLI works while they are down.
 */
export interface CliContext {
  config: Config;
  paths: Paths;
  clock: Clock;
  /** Opens the store of this configuration (DATA_DIR or MONGO_URL) on first use. */
  store(): Promise<Store>;
  /** Loads the catalog on first use. */
  catalog(): Promise<Catalog>;
  /** Human-readable progress or notes; goes to stderr so stdout stays valid JSON. */
  note(text: string): void;
  /** Exit code after a successful run (default 0), e.g. 1 when a dry run found failures. */
  exitCode: number;
  /** Aborted when the user stops the CLI (Ctrl-C): a command that runs until then (a watch) ends. */
  signal: AbortSignal;
}

/**
 * A CLI command. Each file in src/cli/commands/ default-exports an array of these; the CLI
 * finds the files itself, so adding a command is adding a file.
 */
export interface CliCommand {
  /** Words the user types, e.g. "consumers create"; "mappings:dry-run" also works as "mappings dry-run". */
  name: string;
  summary: string;
  /** Synopsis of the positional arguments, e.g. "<consumerId>". */
  positionals?: { synopsis: string; min: number; max: number };
  options?: Record<string, CliOption>;
  /** The result is printed as JSON on stdout (nothing when undefined). */
  run(ctx: CliContext, args: CliArgs): Promise<unknown>;
}

/** Wrong use of the CLI: exit code 2 and the command's usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: CliCommand,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A required string option, or a usage error naming it. */
export function requiredString(args: CliArgs, name: string): string {
  const v = args.values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** An optional repeatable string option, also accepting comma-separated values. */
export function stringList(args: CliArgs, name: string): string[] | undefined {
  const v = args.values[name];
  if (v === undefined) return undefined;
  const list = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
  return list.flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== '');
}
