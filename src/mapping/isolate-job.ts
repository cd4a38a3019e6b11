import type { MappingLimits } from './compile.ts';

/**
 * What crosses to the interpreter's thread (./isolate.ts, ./isolate-thread.ts) and back: plain
 * data. A JSONata error comes back as data too (code, message with its line, position, value),
 * so the pipeline quarantines it exactly as if the interpreter had run here.
 */
export interface IsolateJob {
  file: string;
  source: string;
  input: unknown;
  bindings: Record<string, unknown>;
}

export type IsolateAnswer = { ok: true; output: unknown } | { ok: false; error: { code?: string; message: string; position?: number; value?: unknown } };

export interface IsolateSetup {
  limits: MappingLimits;
}
