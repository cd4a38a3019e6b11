import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadAdapterRegistry } from '../../src/adapters/registry.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { DEFAULT_LIMITS } from '../../src/mapping/compile.ts';
import { logMappingEngines } from '../../src/main/log-mapping-engines.ts';
import { defaultPaths } from '../../src/paths.ts';

/* At start the operator reads, once per mapping file, which engine runs it and why not compiled. */

const paths = defaultPaths();
const catalog = await loadCatalog(paths.catalog);

async function startLines(compiler: 'on' | 'off'): Promise<Record<string, unknown>[]> {
  const config = loadConfig({ MAPPING_COMPILER: compiler });
  const registry = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
    mappingsDir: paths.mappings,
    limits: DEFAULT_LIMITS,
    engine: { compiler: config.MAPPING_COMPILER === 'on' },
  });
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  logMappingEngines(registry, createLogger({ level: 'info', pretty: false, destination }));
  return lines;
}

describe('the mapping engines logged at start', () => {
  it('by default every mapping of ours runs compiled, one line per file', async () => {
    const lines = await startLines('on');
    expect(lines.map((l) => l.mapping).sort()).toEqual([
      'mappings/borealis/incident.jsonata',
      'mappings/borealis/vehicle-status.jsonata',
      'mappings/kestrel/signals.jsonata',
      'mappings/virtual/event.jsonata',
      'mappings/virtual/telemetry.jsonata',
    ]);
    for (const l of lines) expect(l).toMatchObject({ level: 30, engine: 'compiled', msg: 'mapping runs compiled to JavaScript' });
  });

  it('with MAPPING_COMPILER=off every mapping runs interpreted, and the line says why', async () => {
    const lines = await startLines('off');
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(l).toMatchObject({ engine: 'interpreted', because: 'MAPPING_COMPILER is off', msg: 'mapping runs in the JSONata interpreter' });
  });

  it('refuses a MAPPING_COMPILER value that is neither on nor off', () => {
    expect(() => loadConfig({ MAPPING_COMPILER: 'yes' })).toThrow(/MAPPING_COMPILER/);
  });
});
