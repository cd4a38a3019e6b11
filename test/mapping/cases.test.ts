import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdapterRegistry, type AdapterRegistry } from '../../src/adapters/registry.ts';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { runCase } from '../../src/mapping-cases/cases.ts';
import { defaultPaths } from '../../src/paths.ts';

/**
 * The data-driven mapping tests: one test per file mappings/<manufacturer>/cases/*.json, named
 * after it (the same runner as `npm run mappings:test`).
 */
const paths = defaultPaths();
const caseFiles = readdirSync(paths.mappings, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(paths.mappings, d.name, 'cases'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => [d.name, join(paths.mappings, d.name, 'cases', f)] as const),
  );

describe('mapping cases', () => {
  let catalog: Catalog;
  let registry: AdapterRegistry;
  beforeAll(async () => {
    catalog = await loadCatalog(paths.catalog);
    registry = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), { mappingsDir: paths.mappings });
  });

  it('finds cases for every adapter', () => {
    for (const a of registry.list()) expect(caseFiles.filter(([m]) => m === a.manifest.id).length).toBeGreaterThan(0);
  });

  it('every item a manifest declares is produced by one of its cases', () => {
    for (const a of registry.list()) {
      const produced = new Set(
        caseFiles
          .filter(([m]) => m === a.manifest.id)
          .flatMap(([, f]) => (JSON.parse(readFileSync(f, 'utf8')) as { expect: { items?: { item: string }[] } }).expect.items ?? [])
          .map((i) => i.item),
      );
      expect(a.manifest.items.filter((i) => !produced.has(i)), a.manifest.id).toEqual([]);
    }
  });

  for (const [manufacturer, file] of caseFiles) {
    it(file.slice(paths.mappings.length + 1), async () => {
      const result = await runCase(registry, catalog, manufacturer, file, paths.mappings);
      expect(result.problems).toEqual([]);
    });
  }
});
