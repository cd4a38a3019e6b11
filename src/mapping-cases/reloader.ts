import type { AdapterRegistry } from '../adapters/registry.ts';
import type { ReloadableRegistry } from '../adapters/reloadable.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { checkReload, type ManufacturerChange } from './reload-check.ts';

/** What one reload did in one process. */
export interface ReloadOutcome {
  at: string;
  /** What asked for it: a file change (the try-out), the reload command, the console. */
  trigger: string;
  /** applied: the process serves the files on disk now; refused: it keeps what it served, for `problems`. */
  outcome: 'applied' | 'unchanged' | 'refused';
  changes: ManufacturerChange[];
  problems: string[];
  cases: { ran: number; passed: number };
}

export interface ReloaderDeps {
  /** The registry this process serves from; a reload replaces what it serves. */
  registry: ReloadableRegistry;
  /** Loads adapters/ and mappings/ from disk with the checks and limits of a start; throws on a broken manifest or mapping. */
  load(): Promise<AdapterRegistry>;
  catalog: Catalog;
  mappingsDir: string;
  clock: Clock;
  logger: Logger;
}

export interface MappingReloader {
  /** Loads the files as they are now and serves them if their cases pass; one reload at a time, in order. */
  reload(trigger: string): Promise<ReloadOutcome>;
}

/**
 * Mappings and manifests without a restart. The files on disk are loaded as a start would load
 * them, and served only when every case of each changed manufacturer passes against them; a
 * broken file, a failing case or a change that takes a restart leaves the process serving what
 * it served, and says why (in the log, and in the outcome the console shows).
 */
export function createMappingReloader(deps: ReloaderDeps): MappingReloader {
  let queue: Promise<unknown> = Promise.resolve();

  async function once(trigger: string): Promise<ReloadOutcome> {
    const at = deps.clock.now().toISOString();
    const refused = (problems: string[], rest: Partial<ReloadOutcome> = {}): ReloadOutcome => {
      deps.logger.warn({ trigger, problems }, 'mapping reload refused: the current mappings stay');
      return { at, trigger, outcome: 'refused', changes: [], cases: { ran: 0, passed: 0 }, ...rest, problems };
    };
    let candidate: AdapterRegistry;
    try {
      candidate = await deps.load();
    } catch (err) {
      return refused([(err as Error).message]);
    }
    let check;
    try {
      check = await checkReload(deps.registry.current(), candidate, deps.catalog, deps.mappingsDir);
    } catch (err) {
      return refused([`the cases could not be run: ${(err as Error).message}`]);
    }
    if (check.problems.length) return refused(check.problems, { changes: check.changes, cases: check.cases });
    if (check.changes.length === 0) return { at, trigger, outcome: 'unchanged', changes: [], problems: [], cases: check.cases };
    deps.registry.replace(candidate);
    deps.logger.info(
      { trigger, changes: check.changes.map((c) => ({ manufacturer: c.manufacturer, manifest: c.manifest, mappings: c.mappings.map((m) => `${m.messageType}: ${m.from ?? '-'} -> ${m.to ?? '-'}`) })), cases: check.cases },
      'mappings reloaded',
    );
    return { at, trigger, outcome: 'applied', changes: check.changes, problems: [], cases: check.cases };
  }

  return {
    reload(trigger) {
      const next = queue.then(() => once(trigger));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
