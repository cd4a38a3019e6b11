import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { dryRun, type DryRunResult } from '../pipeline/dry-run.ts';
import { DEFAULT_RECEIVED_AT, type MappingCase } from './cases.ts';

/** A case file's name: what `mappings/<id>/cases/<name>.json` may be called. */
export const CASE_NAME = /^[a-z0-9][a-z0-9-]{0,79}$/;

/** Longest part of a failure's reason a new case expects (enough to tell it, not the whole text). */
const REASON_PART = 120;

/**
 * A mapping case that pins down what the mapping made of a raw message: its harmonized items,
 * or its failure (code and the start of its reason), from a dry run of the message received at
 * the case runner's default time ({@link DEFAULT_RECEIVED_AT}), so the case passes against the
 * mapping it was made with and fails when a later change alters the output.
 */
export function caseOf(where: { messageType: string; description?: string }, raw: string, result: DryRunResult): MappingCase {
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch {
    input = undefined;
  }
  const expect: MappingCase['expect'] = result.failure
    ? { error: result.failure.code, reasonContains: result.failure.reason.slice(0, REASON_PART) }
    : { items: result.items.map(({ vin, item, payload }) => ({ vin, item, payload })) };
  return {
    ...(where.description ? { description: where.description } : {}),
    messageType: where.messageType,
    ...(input !== undefined && typeof input === 'object' && input !== null && !Array.isArray(input) ? { input } : { raw }),
    expect,
  };
}

/** {@link caseOf} a message dry-run on `registry` here (the CLI; the console runs it in its sandbox). */
export async function caseFromMessage(
  registry: AdapterRegistry,
  catalog: Catalog,
  where: { manufacturer: string; messageType: string; description?: string },
  raw: string,
): Promise<MappingCase | undefined> {
  const result = await dryRun(registry, catalog, where.manufacturer, where.messageType, raw, DEFAULT_RECEIVED_AT);
  return result ? caseOf(where, raw, result) : undefined;
}
