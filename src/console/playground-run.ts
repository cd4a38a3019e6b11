import { basename } from 'node:path';
import type { Adapter } from '../adapters/manifest.ts';
import { apiErrors } from '../errors.ts';
import { listCaseFiles, type CaseResult } from '../mapping-cases/cases.ts';
import type { CompileFailure } from '../mapping-cases/sandbox-job.ts';
import { ThreadBusy, type EditedMapping, type MappingSandbox } from '../mapping-cases/sandbox.ts';
import { DEFAULT_RECEIVED_AT, type MappingCase } from '../mapping-cases/cases.ts';
import { caseOf } from '../mapping-cases/case-file.ts';
import type { DryRunResult } from '../pipeline/dry-run.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Clock } from '../clock.ts';

/**
 * The mapping playground's server side: the manufacturer's adapter with ONE mapping replaced by
 * the edited text, compiled under the same limits and engine as every mapping (MAPPING_TIMEOUT_MS,
 * MAPPING_MAX_DEPTH, MAPPING_COMPILER), then the dry run or the manufacturer's cases on it. The
 * text is never compiled nor run in this thread: the mapping sandbox (a worker thread with its
 * own heap, terminated at the run's deadline) does both, so whatever an operator types, the
 * process's event loop keeps serving. Nothing is written: the pipeline's registry is never touched.
 */
export interface Edited {
  adapter: Adapter;
  edit: EditedMapping;
  /** The file the edit replaces, as the page names it (mappings/<id>/<file>). */
  shownAs: string;
  absoluteFile: string;
}

export function editedMapping(adapters: AdapterRegistry, manufacturer: string, messageType: string, source: string): Edited | undefined {
  const adapter = adapters.get(manufacturer);
  const current = adapter?.mappings.get(messageType);
  if (!adapter || !current) return undefined;
  return { adapter, edit: { messageType, source }, shownAs: `mappings/${manufacturer}/${basename(current.file)}`, absoluteFile: current.file };
}

/** A compile error names the file as the page does, not by its path on the server. */
function shown(edited: Edited, failure: CompileFailure): CompileFailure {
  return { compileError: failure.compileError.replace(edited.absoluteFile, edited.shownAs) };
}

/** More runs waiting than the sandbox takes: the page tries again. */
async function orBusy<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ThreadBusy) throw apiErrors.unavailable(2, 'The mapping sandbox is busy: try again in a moment.');
    throw err;
  }
}

export async function playgroundDryRun(clock: Clock, sandbox: MappingSandbox, edited: Edited, raw: string): Promise<DryRunResult | CompileFailure> {
  const result = await orBusy(() => sandbox.dryRun(edited.adapter, edited.edit.messageType, raw, clock.now().toISOString(), edited.edit));
  return 'compileError' in result ? shown(edited, result) : result;
}

/** Every case of the manufacturer (mappings/<id>/cases/), run one after the other against the edited adapter. */
export async function playgroundCases(mappingsDir: string, sandbox: MappingSandbox, edited: Edited): Promise<{ cases: CaseResult[] } | CompileFailure> {
  const id = edited.adapter.manifest.id;
  const files = (await listCaseFiles(mappingsDir)).filter(([m]) => m === id);
  const cases: CaseResult[] = [];
  for (const [, file] of files) {
    const result = await orBusy(() => sandbox.runCase(edited.adapter, file, mappingsDir, edited.edit));
    if ('compileError' in result) return shown(edited, result);
    cases.push(result);
  }
  return { cases };
}

/**
 * A case file pinning down what the edited mapping makes of `raw` (its items, or its failure),
 * dry-run in the sandbox at the case runner's default reception time, so the case passes
 * against the mapping it was made with.
 */
export async function playgroundCase(sandbox: MappingSandbox, edited: Edited, raw: string): Promise<{ case: MappingCase } | CompileFailure> {
  const result = await orBusy(() => sandbox.dryRun(edited.adapter, edited.edit.messageType, raw, DEFAULT_RECEIVED_AT, edited.edit));
  return 'compileError' in result ? shown(edited, result) : { case: caseOf({ messageType: edited.edit.messageType }, raw, result) };
}
