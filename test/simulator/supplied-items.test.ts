import { describe, expect, it } from 'vitest';
import { loadAdapterRegistry } from '../../src/adapters/registry.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { DEFAULT_LIMITS } from '../../src/mapping/compile.ts';
import { analyse } from '../../src/pipeline/harmonize.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { defaultPaths } from '../../src/paths.ts';
import { eventsBetween } from '../../simulator/src/events.ts';
import { sample } from '../../simulator/src/sample.ts';
import { suppliedItems } from '../../simulator/src/supplied-items.ts';
import { allVehicles } from './fixtures.ts';

/*
 * What each vehicle is said to supply (README table, start-in-state test) is what the real
 * mapping makes of a day of its raw messages: samples every 20 minutes and every event.
 */
const paths = defaultPaths();
const catalog = await loadCatalog(paths.catalog);
const adapter = (await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
  mappingsDir: paths.mappings,
  // A generous time limit: the machine running the suite is busy, and this is about what is produced.
  limits: { ...DEFAULT_LIMITS, timeoutMs: 5000 },
})).get('virtual')!;
const DAY = Date.parse('2026-11-25T00:00:00Z');

describe.each(allVehicles().map((v) => [v.vin, v] as const))('%s', (_vin, v) => {
  it('supplies exactly the items the mapping produces from a day of its messages, all catalog-valid', async () => {
    const produced = new Set<string>();
    const messages = [
      ...Array.from({ length: 72 }, (_, i) => ({ type: 'telemetry', body: sample(v, DAY + i * 20 * 60_000) })),
      ...eventsBetween(v, DAY - 1, DAY + 86_400_000 - 1).map((e) => ({ type: 'event', body: e })),
    ];
    for (const m of messages) {
      const raw = rawMessage({ manufacturer: 'virtual', messageType: m.type, receivedAt: '2026-11-26T00:00:00.000Z' }, Buffer.from(JSON.stringify(m.body)));
      const analysis = await analyse(adapter, catalog, raw);
      expect(analysis.failure, `${m.type} ${JSON.stringify(analysis.failure)}`).toBeUndefined();
      for (const c of analysis.candidates) produced.add(c.item);
    }
    expect([...produced].sort()).toEqual(suppliedItems(v));
  });
});
