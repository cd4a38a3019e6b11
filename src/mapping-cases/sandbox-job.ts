import type { AdapterManifest } from '../adapters/manifest.ts';
import type { EngineOptions, MappingLimits } from '../mapping/compile.ts';

/**
 * What the main thread sends the mapping sandbox's thread (./sandbox.ts, ./sandbox-thread.ts):
 * plain data, since it crosses threads. The adapter travels with its mappings' texts, so the
 * thread compiles exactly what the process runs (or the playground's edit of one of them).
 */
export interface AdapterSpec {
  manifest: AdapterManifest;
  dir: string;
  mappings: { messageType: string; file: string; source: string }[];
}

export type SandboxJob =
  | { kind: 'dry-run'; adapter: AdapterSpec; messageType: string; raw: string; receivedAt: string }
  | { kind: 'case'; adapter: AdapterSpec; file: string; mappingsDir: string };

/** Set once per thread. */
export interface SandboxSetup {
  catalogDir: string;
  limits: MappingLimits;
  engine: EngineOptions;
}

/** A mapping text that does not compile: the thread's message (naming the file). */
export interface CompileFailure {
  compileError: string;
}
