import { basename, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Adapter } from '../adapters/manifest.ts';
import { mappingVersion, type EngineOptions, type MappingLimits } from '../mapping/compile.ts';
import { createThreadRunner, ThreadStopped } from '../mapping/thread-runner.ts';
import type { DryRunResult } from '../pipeline/dry-run.ts';
import type { CaseResult } from './cases.ts';
import type { AdapterSpec, CompileFailure, SandboxJob, SandboxSetup } from './sandbox-job.ts';

export { ThreadBusy } from '../mapping/thread-runner.ts';

/**
 * The mapping sandbox: dry runs and mapping cases (the console's playground, the admin dry
 * run) run in a worker thread with a heap of its own (MAPPING_SANDBOX_MEMORY_MB), which is
 * terminated when a run outlives its deadline. Whatever a mapping does there (an endless loop,
 * `$sort` of a long list, a backtracking regular expression), this process's event loop keeps
 * serving and the process lives on; the run's answer is then a MAPPING_LIMIT failure.
 *
 * Deadline of a run: MAPPING_TIMEOUT_MS per mapping evaluation it may make (a dry run one, a
 * case two: it evaluates again to explain a failure), plus RUN_GRACE_MS for the rest (decoding,
 * schema validation, passing the answer back).
 */
export interface MappingSandbox {
  /** The dry run of `raw` on the adapter, with `edited` replacing one of its mappings if given. */
  dryRun(adapter: Adapter, messageType: string, raw: string, receivedAt: string, edited?: EditedMapping): Promise<DryRunResult | CompileFailure>;
  /** One case file of the adapter's, likewise. */
  runCase(adapter: Adapter, file: string, mappingsDir: string, edited?: EditedMapping): Promise<CaseResult | CompileFailure>;
  close(): Promise<void>;
}

export interface EditedMapping {
  messageType: string;
  source: string;
}

export interface SandboxSettings {
  catalogDir: string;
  limits: MappingLimits;
  engine: EngineOptions;
  memoryMb: number;
  /** A run stopped (time, memory): for a log line. */
  onStopped?: (reason: string) => void;
}

export const RUN_GRACE_MS = 1000;

const ext = extname(fileURLToPath(import.meta.url));
const ENTRY = new URL(`./sandbox-thread${ext}`, import.meta.url);

function specOf(adapter: Adapter, edited: EditedMapping | undefined): AdapterSpec {
  return {
    manifest: adapter.manifest,
    dir: adapter.dir,
    mappings: [...adapter.mappings].map(([messageType, m]) => ({
      messageType,
      file: m.file,
      source: edited?.messageType === messageType ? edited.source : m.source,
    })),
  };
}

export function createMappingSandbox(settings: SandboxSettings): MappingSandbox {
  const setup: SandboxSetup = { catalogDir: settings.catalogDir, limits: settings.limits, engine: settings.engine };
  const runner = createThreadRunner<SandboxJob, DryRunResult | CaseResult | CompileFailure>({
    entry: ENTRY,
    setup,
    resourceLimits: { maxOldGenerationSizeMb: settings.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, settings.memoryMb / 8)), stackSizeMb: 4 },
    ...(settings.onStopped ? { onStopped: settings.onStopped } : {}),
  });
  const evaluationMs = settings.limits.timeoutMs > 0 ? settings.limits.timeoutMs : 60_000;

  return {
    async dryRun(adapter, messageType, raw, receivedAt, edited) {
      try {
        return (await runner.run({ kind: 'dry-run', adapter: specOf(adapter, edited), messageType, raw, receivedAt }, evaluationMs + RUN_GRACE_MS)) as DryRunResult | CompileFailure;
      } catch (err) {
        if (!(err instanceof ThreadStopped)) throw err;
        const m = adapter.mappings.get(messageType);
        const source = edited?.messageType === messageType ? edited.source : m?.source;
        return {
          manufacturer: adapter.manifest.id,
          messageType,
          mappingVersion: m && source !== undefined ? mappingVersion(m.file, source) : null,
          valid: false,
          failure: { code: 'MAPPING_LIMIT', reason: err.message },
          items: [],
        };
      }
    },
    async runCase(adapter, file, mappingsDir, edited) {
      try {
        return (await runner.run({ kind: 'case', adapter: specOf(adapter, edited), file, mappingsDir }, 2 * evaluationMs + RUN_GRACE_MS)) as CaseResult | CompileFailure;
      } catch (err) {
        if (!(err instanceof ThreadStopped)) throw err;
        return { manufacturer: adapter.manifest.id, name: file.slice(mappingsDir.length + 1) || basename(file), problems: [`MAPPING_LIMIT: ${err.message}`] };
      }
    },
    close: () => runner.close(),
  };
}
