import type { Catalog } from './catalog.ts';

/** Loads every catalog/*.json file; a broken file stops the start, naming the file. */
export async function loadCatalog(_dir: string): Promise<Catalog> {
  throw new Error('loadCatalog is not implemented yet');
}
