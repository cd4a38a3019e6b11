import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdapterRegistry, type AdapterRegistry } from '../../src/adapters/registry.ts';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { analyse } from '../../src/pipeline/harmonize.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { defaultPaths } from '../../src/paths.ts';

/**
 * The acceptance test every adapter inherits (as Eclipse Hono's LoraProviderTestBase): its
 * real raw fixtures, `adapters/<id>/fixtures/<id>.<message-type>[.<case>].json`, each map to
 * catalog-valid items of VINs it claims, and every message type it declares has a fixture.
 */
const paths = defaultPaths();
const adapterIds = readdirSync(paths.adapters, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

describe.each(adapterIds)('adapter %s', (id) => {
  const dir = join(paths.adapters, id, 'fixtures');
  const fixtures = readdirSync(dir).filter((f) => f.endsWith('.json'));
  let registry: AdapterRegistry;
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = await loadCatalog(paths.catalog);
    registry = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), { mappingsDir: paths.mappings });
  });

  it('has a README and a fixture for every message type, each named <id>.<message-type>[.<case>].json', () => {
    expect(readdirSync(join(paths.adapters, id))).toContain('README.md');
    const adapter = registry.get(id)!;
    for (const f of fixtures) {
      const [prefix, type] = f.split('.');
      expect(prefix, f).toBe(id);
      expect(Object.keys(adapter.manifest.messageTypes), f).toContain(type);
    }
    for (const type of Object.keys(adapter.manifest.messageTypes)) {
      expect(fixtures.some((f) => f.split('.')[1] === type), `a fixture for ${type}`).toBe(true);
    }
  });

  it.each(fixtures)('maps %s to catalog-valid items of its own VINs', async (f) => {
    const adapter = registry.get(id)!;
    const type = f.split('.')[1]!;
    const analysis = await analyse(adapter, catalog, rawMessage({ manufacturer: id, messageType: type, receivedAt: '2026-11-25T12:00:00.000Z' }, readFileSync(join(dir, f))));
    expect(analysis.failure).toBeUndefined();
    expect(analysis.candidates.length).toBeGreaterThan(0);
    for (const c of analysis.candidates) {
      expect(adapter.manifest.items).toContain(c.item);
      expect(registry.forVin(c.vin)?.manifest.id).toBe(id);
      expect(catalog.validate(c.item, c.payload), `${c.item}`).toEqual({ valid: true });
    }
  });
});
