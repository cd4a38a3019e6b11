import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MappingBindings, MappingLimits } from './compile.ts';
import type { IsolateAnswer, IsolateJob, IsolateSetup } from './isolate-job.ts';
import { createThreadRunner, ThreadStopped } from './thread-runner.ts';

/**
 * Where the pipeline's mappings that run interpreted are evaluated: a worker thread with its
 * own heap (MAPPING_SANDBOX_MEMORY_MB), terminated when an evaluation outlives
 * MAPPING_TIMEOUT_MS plus ISOLATE_GRACE_MS. The interpreter checks its time limit only between
 * its own steps: JSONata's `$sort` of a long list (its merge is quadratic in memory) or a
 * backtracking regular expression would otherwise block, or kill, the whole process. A stopped
 * evaluation fails with the code MAPPING_STOPPED, which the pipeline quarantines as
 * MAPPING_LIMIT; the next one starts a new thread. Compiled mappings run in the calling thread:
 * they have none of those constructs, and check their deadline in every loop.
 */
export interface MappingIsolate {
  evaluate(file: string, source: string, input: unknown, bindings: MappingBindings): Promise<unknown>;
  close(): Promise<void>;
}

/** For cloning the message in and the output back, and the thread's own turn. */
export const ISOLATE_GRACE_MS = 500;

/** The error code of an evaluation the thread's deadline or heap limit stopped. */
export const STOPPED_CODE = 'MAPPING_STOPPED';

const ENTRY = new URL(`./isolate-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export function createMappingIsolate(opts: { limits: MappingLimits; memoryMb: number; onStopped?: (reason: string) => void }): MappingIsolate {
  const setup: IsolateSetup = { limits: opts.limits };
  const runner = createThreadRunner<IsolateJob, IsolateAnswer>({
    entry: ENTRY,
    setup,
    resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, opts.memoryMb / 8)), stackSizeMb: 4 },
    // A batch's messages wait their turn; they are bounded by the pipeline's concurrency.
    maxWaiting: 100_000,
    ...(opts.onStopped ? { onStopped: opts.onStopped } : {}),
  });
  const deadlineMs = (opts.limits.timeoutMs > 0 ? opts.limits.timeoutMs : 60_000) + ISOLATE_GRACE_MS;
  return {
    async evaluate(file, source, input, bindings) {
      let answer: IsolateAnswer;
      try {
        answer = await runner.run({ file, source, input, bindings: { ...bindings } }, deadlineMs);
      } catch (err) {
        if (err instanceof ThreadStopped) throw Object.assign(new Error(err.message), { code: STOPPED_CODE });
        throw err;
      }
      if (answer.ok) return answer.output;
      throw Object.assign(new Error(answer.error.message), answer.error);
    },
    close: () => runner.close(),
  };
}
