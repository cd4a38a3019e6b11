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

/** Validates one payload against one item's compiled schema. */
export type PayloadValidator = (payload: unknown) => ValidationResult;

export interface CatalogFilter {
  deliveryMethod?: 'pull' | 'push';
  /** Entries whose `updatedAt` is at or after this instant. */
  updatedSince?: Date;
}

export interface Catalog {
  /** Entries sorted by technicalName. The entries are frozen: do not change them. */
  list(filter?: CatalogFilter): CatalogEntry[];
  get(technicalName: string): CatalogEntry | undefined;
  /** Validates a payload against the item's schema (compiled once at load). Unknown item: invalid. */
  validate(technicalName: string, payload: unknown): ValidationResult;
  /**
   * The compiled validator of one item, for hot paths that validate many payloads of the same
   * item (the pipeline) and want to skip the lookup; undefined for an unknown item.
   * Errors read like `/unit must be equal to one of the allowed values: km, mi`.
   */
  validator(technicalName: string): PayloadValidator | undefined;
}
