import type { Catalog, CatalogEntry, CatalogFilter, PayloadValidator, ValidationResult } from './catalog.ts';

/** The loaded catalog: entries sorted by technicalName, one compiled validator per entry. */
export function createMemoryCatalog(items: { entry: CatalogEntry; validator: PayloadValidator }[]): Catalog {
  const sorted = [...items].sort((a, b) => a.entry.technicalName.localeCompare(b.entry.technicalName));
  const entries = sorted.map((i) => i.entry);
  const byName = new Map(sorted.map((i) => [i.entry.technicalName, i]));

  return {
    list(filter: CatalogFilter = {}): CatalogEntry[] {
      const since = filter.updatedSince?.getTime();
      return entries.filter(
        (e) =>
          (filter.deliveryMethod === undefined || e.deliveryMethod === filter.deliveryMethod) &&
          (since === undefined || Date.parse(e.updatedAt) >= since),
      );
    },
    get(technicalName: string): CatalogEntry | undefined {
      return byName.get(technicalName)?.entry;
    },
    validate(technicalName: string, payload: unknown): ValidationResult {
      const item = byName.get(technicalName);
      if (!item) return { valid: false, errors: [`unknown data item ${technicalName}`] };
      return item.validator(payload);
    },
    validator(technicalName: string): PayloadValidator | undefined {
      return byName.get(technicalName)?.validator;
    },
  };
}
