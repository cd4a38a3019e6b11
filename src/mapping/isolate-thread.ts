import { compileMappingSource, type CompiledMapping, type MappingBindings } from './compile.ts';
import type { IsolateAnswer, IsolateJob, IsolateSetup } from './isolate-job.ts';
import { serveJobs } from './thread-serve.ts';

/**
 * The interpreter's thread (./isolate.ts): evaluates deployed mappings that run interpreted,
 * each compiled once (by its text), under the process's limits.
 */

/** What structured cloning can carry of a JSONata value: functions (a mapping's lambdas) dropped. */
function cloneable(v: unknown): unknown {
  if (typeof v === 'function') return undefined;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(cloneable);
  if ((v as { _jsonata_lambda?: unknown })._jsonata_lambda === true || (v as { _jsonata_function?: unknown })._jsonata_function === true) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = cloneable((v as Record<string, unknown>)[k]);
    if (x !== undefined) Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

void serveJobs(async (setup: IsolateSetup) => {
  const compiled = new Map<string, CompiledMapping>();
  return async (job: IsolateJob): Promise<IsolateAnswer> => {
    const key = `${job.file}\n${job.source}`;
    let m = compiled.get(key);
    if (!m) {
      m = compileMappingSource(job.file, job.source, setup.limits, { compiler: false });
      compiled.set(key, m);
    }
    try {
      return { ok: true, output: cloneable(await m.evaluate(job.input, job.bindings as unknown as MappingBindings)) };
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown; position?: unknown; value?: unknown };
      const value = typeof e.value === 'object' && e.value !== null ? undefined : e.value;
      return {
        ok: false,
        error: {
          message: typeof e.message === 'string' ? e.message : String(err),
          ...(typeof e.code === 'string' ? { code: e.code } : {}),
          ...(typeof e.position === 'number' ? { position: e.position } : {}),
          ...(value !== undefined && typeof value !== 'function' ? { value } : {}),
        },
      };
    }
  };
});
