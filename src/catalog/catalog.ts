/**
 * The data catalog as the rest of the service sees it. OWNED BY THE CATALOG WORK, which
 * implements {@link loadCatalog} in src/catalog/load.ts.
 */
export interface CatalogEntry {
  technicalName: string;
  name: string;
  description: string;
  lifecycleStatus: 'PUBLISHED';
  type: 'IN_VEHICLE';
  personalData: false;
  /** Present and true only on push items that are events. */
  event?: true;
  deliveryMethod: 'pull' | 'push';
  /** Raised on every change of the entry. */
  version: number;
  updatedAt: string;
  /** JSON Schema draft-04 of the payload. */
  schema: Record<string, unknown>;
}

export type ValidationResult = { valid: true } | { valid: false; errors: string[] };

export interface Catalog {
  list(filter?: { deliveryMethod?: 'pull' | 'push'; updatedSince?: Date }): CatalogEntry[];
  get(technicalName: string): CatalogEntry | undefined;
  /** Validates a payload against the item's schema (compiled once at load). Unknown item: invalid. */
  validate(technicalName: string, payload: unknown): ValidationResult;
}
