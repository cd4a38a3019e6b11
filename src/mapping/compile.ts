import jsonata from 'jsonata';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { metrics } from '../metrics/metrics.ts';
import { HELPERS } from './helpers.ts';
import { translateMapping } from './to-js/compile-to-js.ts';
import { pastDeadline, RunTimedOut } from './to-js/deadline.ts';

/** Limits every evaluation runs under (MAPPING_TIMEOUT_MS, MAPPING_MAX_DEPTH); 0 switches one off. */
export interface MappingLimits {
  timeoutMs: number;
  maxDepth: number;
  /** Longest sequence an evaluation may build (stops runaway $map/range expansions). */
  maxSequence: number;
}

/** As the defaults of MAPPING_TIMEOUT_MS and MAPPING_MAX_DEPTH (src/config.ts). */
export const DEFAULT_LIMITS: MappingLimits = { timeoutMs: 1000, maxDepth: 1000, maxSequence: 100_000 };

/**
 * The jsonata release the compiled code (./to-js/) is a port of, line for line: package.json
 * pins exactly this one. Another release installed (a lock file bypassed, a manual upgrade) may
 * evaluate differently, so then every mapping runs in the interpreter, and says why.
 */
export const PORTED_JSONATA = '2.2.2';

/** The installed jsonata's version, from its package.json. */
export const INSTALLED_JSONATA: string = (createRequire(import.meta.url)('jsonata/package.json') as { version: string }).version;

/** A mapping file compiled once at start. */
export interface CompiledMapping {
  /** Absolute path of the .jsonata file. */
  file: string;
  /**
   * Provenance recorded on every stored point: `<file name>@<first 12 hex of its SHA-256>`, so
   * any edit to the mapping changes the version without anyone having to remember to bump it.
   */
  version: string;
  /** The mapping's text, as compiled (a sandbox thread compiles the same text again). */
  source: string;
  /** Evaluates the mapping on one decoded raw message. Throws a JSONata error (with `code`). */
  evaluate(input: unknown, bindings: MappingBindings): Promise<unknown>;
  /**
   * `compiled`: translated to JavaScript (./to-js/), the interpreter taking over only the inputs
   * the translation does not model exactly; `interpreted`: every input runs in the JSONata interpreter.
   */
  engine: 'compiled' | 'interpreted';
  /** Why the mapping runs interpreted (absent when compiled). */
  interpretedBecause?: string;
}

/** How a mapping is run: MAPPING_COMPILER (on by default). */
export interface EngineOptions {
  compiler: boolean;
  /** The jsonata version installed (default: read from its package.json); tests pass another. */
  jsonataVersion?: string;
  /**
   * Where a mapping that runs interpreted is evaluated (the pipeline's: a worker thread,
   * ./isolate.ts); without it, in this thread (the sandbox's own thread, the CLI, tests).
   */
  isolate?: { evaluate(file: string, source: string, input: unknown, bindings: MappingBindings): Promise<unknown> };
}

/** Variables bound per evaluation, besides the helpers. */
export interface MappingBindings {
  /** When the service received the raw message (ISO 8601): events use it as `receivedAt`. */
  receivedAt: string;
  /** The raw message's type (e.g. "telemetry"). */
  messageType: string;
  /** The MQTT topic, when the message came over MQTT. */
  topic?: string;
}

/** A mapping file that does not compile: the error names the file and the position. */
export class MappingCompileError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`mapping ${file} does not compile: ${detail}`);
    this.name = 'MappingCompileError';
  }
}

/** `<file name>@<first 12 hex of the text's SHA-256>` (CompiledMapping.version). */
export function mappingVersion(file: string, source: string): string {
  return `${basename(file)}@${createHash('sha256').update(source).digest('hex').slice(0, 12)}`;
}

export function compileMappingSource(
  file: string,
  source: string,
  limits: MappingLimits = DEFAULT_LIMITS,
  options: EngineOptions = { compiler: true },
): CompiledMapping {
  let expr: jsonata.Expression;
  try {
    // JSONata treats a limit of 0 as a limit; leave out what is switched off.
    expr = jsonata(source, {
      ...(limits.timeoutMs > 0 ? { timeout: limits.timeoutMs } : {}),
      ...(limits.maxDepth > 0 ? { stack: limits.maxDepth } : {}),
      ...(limits.maxSequence > 0 ? { sequence: limits.maxSequence } : {}),
    });
  } catch (err) {
    const e = err as { message?: string; position?: number };
    throw new MappingCompileError(file, `${e.message ?? String(err)} (at character ${e.position ?? '?'})`);
  }
  for (const [name, h] of Object.entries(HELPERS)) expr.registerFunction(name, h.impl, h.signature);
  const version = mappingVersion(file, source);
  const inThisThread = (input: unknown, bindings: MappingBindings): Promise<unknown> =>
    expr.evaluate(input, { ...bindings }).catch((err: unknown) => Promise.reject(withLine(err, source)));
  const { isolate } = options;
  // A mapping that runs interpreted runs in the isolate when there is one; a compiled mapping's
  // hand-overs stay here: they evaluate the compiled subset, which the interpreter's own clock bounds.
  const interpret = isolate ? (input: unknown, bindings: MappingBindings) => isolate.evaluate(file, source, input, bindings) : inThisThread;
  if (!options.compiler) return { file, version, source, evaluate: interpret, engine: 'interpreted', interpretedBecause: 'MAPPING_COMPILER is off' };
  const installed = options.jsonataVersion ?? INSTALLED_JSONATA;
  if (installed !== PORTED_JSONATA) {
    const because = `jsonata ${installed} is installed, and the compiled code is a port of jsonata ${PORTED_JSONATA} (package.json pins it)`;
    return { file, version, source, evaluate: interpret, engine: 'interpreted', interpretedBecause: because };
  }
  const translation = translateMapping(expr.ast(), limits);
  if (!translation.ok) return { file, version, source, evaluate: interpret, engine: 'interpreted', interpretedBecause: translation.reason };
  const { run } = translation;
  const handovers = metrics.mappingHandovers.labels(basename(file));
  const handOver = (input: unknown, bindings: MappingBindings): Promise<unknown> => {
    handovers.inc();
    return inThisThread(input, bindings);
  };
  return {
    file,
    version,
    source,
    engine: 'compiled',
    evaluate: (input, bindings) => {
      let output: unknown;
      try {
        output = run(input, { ...bindings });
      } catch (err) {
        if (err instanceof RunTimedOut) return Promise.reject(timeoutError(limits.timeoutMs));
        // A case the compiled code does not model exactly (a bail-out): JSONata decides, errors included.
        return handOver(input, bindings);
      }
      // Past the deadline between two of the run's clock readings: over the limit all the same.
      if (pastDeadline()) return Promise.reject(timeoutError(limits.timeoutMs));
      return Promise.resolve(output);
    },
  };
}

/** JSONata's own timeout error (D1012), as the interpreter raises it. */
function timeoutError(timeoutMs: number): Error {
  return Object.assign(new Error(`Evaluation timeout after ${timeoutMs} milliseconds. Check for infinite loop`), { code: 'D1012', value: timeoutMs });
}

/**
 * A runtime error of the mapping names the line of the mapping it happened on, with its text
 * (which usually names the catalog item being built): JSONata gives only a character offset,
 * and the quarantine reason is all an engineer sees of a failure in production.
 */
function withLine(err: unknown, source: string): unknown {
  const e = err as { position?: unknown; message?: unknown };
  if (typeof e?.position !== 'number' || typeof e.message !== 'string' || e.message.includes('(line ')) return err;
  const lines = source.slice(0, e.position).split('\n');
  const text = (source.split('\n')[lines.length - 1] ?? '').trim();
  e.message = `${e.message} (line ${lines.length}: ${text.length > 120 ? `${text.slice(0, 117)}...` : text})`;
  return err;
}

export async function compileMappingFile(file: string, limits?: MappingLimits, options?: EngineOptions): Promise<CompiledMapping> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (err) {
    throw new MappingCompileError(file, `cannot be read (${(err as Error).message})`);
  }
  return compileMappingSource(file, source, limits, options);
}
