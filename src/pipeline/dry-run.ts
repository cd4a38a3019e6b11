import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { QuarantineCode } from '../store/contract/quarantine.ts';
import { analyse } from './harmonize.ts';
import { rawMessage } from '../domain/raw-message.ts';

export interface DryRunResult {
  manufacturer: string;
  messageType: string;
  mappingVersion: string | null;
  /** True when the message would be stored: every item valid. */
  valid: boolean;
  /** Why it would be quarantined, when it would. */
  failure: { code: QuarantineCode; reason: string } | null;
  /** Every harmonized item, with its schema errors (empty when valid). */
  items: { vin: string; item: string; payload: Record<string, unknown>; valid: boolean; errors: string[] }[];
}

/** Harmonizes one raw message exactly as the pipeline would, storing nothing. */
export async function dryRun(
  registry: AdapterRegistry,
  catalog: Catalog,
  manufacturer: string,
  messageType: string,
  raw: string,
  receivedAt: string,
): Promise<DryRunResult | undefined> {
  const adapter = registry.get(manufacturer);
  if (!adapter) return undefined;
  const analysis = await analyse(adapter, catalog, rawMessage({ manufacturer, messageType, receivedAt }, raw));
  return {
    manufacturer,
    messageType,
    mappingVersion: analysis.mappingVersion,
    valid: !analysis.failure,
    failure: analysis.failure ?? null,
    items: analysis.candidates.map((c) => ({ ...c, valid: c.errors.length === 0 })),
  };
}
