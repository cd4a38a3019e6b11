import type { Adapter } from './manifest.ts';

export interface AdapterRegistry {
  list(): Adapter[];
  get(id: string): Adapter | undefined;
  /** The adapter whose VIN prefix matches (longest prefix wins), or undefined. */
  forVin(vin: string): Adapter | undefined;
}

/** Discovers adapters/<id>/manifest.json files and checks them; a broken one stops the start. */
export async function loadAdapterRegistry(_adaptersDir: string, _catalogItems: ReadonlySet<string>): Promise<AdapterRegistry> {
  throw new Error('loadAdapterRegistry is not implemented yet');
}
