import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapterRegistry, type AdapterRegistry } from '../../src/adapters/registry.ts';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { runCase } from '../../src/mapping-cases/cases.ts';
import { copyProject } from '../pipeline/harness.ts';

/*
 * The case runner itself (the cases of the repository are run by cases.test.ts): a case must not
 * approve what the store would not keep, and a malformed case file is a problem of that file,
 * not the end of the run.
 */

const VIN = 'V1RTUALV1N0000001';
const T = '2026-11-25T10:00:00.000Z';
const mileage = (value: number, timestamp = T) => ({ vin: VIN, item: 'mileage', payload: { value, unit: 'km', timestamp } });
const readings = (...r: [number, string][]) => ({ vin: VIN, readings: r.map(([km, at]) => ({ km, at })) });

describe('mapping case runner', () => {
  let project: ReturnType<typeof copyProject>;
  let catalog: Catalog;
  let registry: AdapterRegistry;
  let casesDir: string;

  beforeAll(async () => {
    project = copyProject();
    // One mileage item per reading: two readings of one instant are two items with one store key.
    writeFileSync(
      join(project.paths.mappings, 'virtual', 'telemetry.jsonata'),
      '(\n  $vin := vin; readings.{ "vin": $vin, "items": { "mileage": { "value": km * 1, "unit": "km", "timestamp": at } } }\n)\n',
    );
    catalog = await loadCatalog(project.paths.catalog);
    registry = await loadAdapterRegistry(project.paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), { mappingsDir: project.paths.mappings });
    casesDir = join(project.paths.mappings, 'virtual', 'cases-under-test');
    mkdirSync(casesDir);
  });
  afterAll(() => project.cleanup());

  const run = async (name: string, content: unknown) => {
    const file = join(casesDir, name);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return runCase(registry, catalog, 'virtual', file, project.paths.mappings);
  };

  it('passes a case whose items are all stored', async () => {
    const r = await run('ok.json', { messageType: 'telemetry', input: readings([1, T], [2, '2026-11-25T11:00:00.000Z']), expect: { items: [mileage(1), mileage(2, '2026-11-25T11:00:00.000Z')] } });
    expect(r).toEqual({ manufacturer: 'virtual', name: 'virtual/cases-under-test/ok.json', problems: [] });
  });

  it('reports two produced items with one VIN, item and time: the store keeps only the first', async () => {
    // Before, the later reading won in the runner's map, so this case passed though 1 is stored.
    const r = await run('dup-produced.json', { messageType: 'telemetry', input: readings([1, T], [2, T]), expect: { items: [mileage(2)] } });
    expect(r.problems).toEqual([
      expect.stringMatching(/the mapping produces 2 mileage items for V1RTUALV1N0000001 at 2026-11-25T10:00:00.000Z.*only the first/),
      // And the comparison is against what is stored: the first reading.
      'mileage of V1RTUALV1N0000001 at 2026-11-25T10:00:00.000Z /value: expected 2, got 1',
    ]);
  });

  it('treats two spellings of one instant as one store key', async () => {
    const r = await run('dup-instant.json', { messageType: 'telemetry', input: readings([1, T], [2, '2026-11-25T10:00:00Z']), expect: { items: [mileage(1)] } });
    expect(r.problems).toEqual([expect.stringMatching(/the mapping produces 2 mileage items/)]);
  });

  it('reports an expected item listed twice', async () => {
    const r = await run('dup-expected.json', { messageType: 'telemetry', input: readings([1, T]), expect: { items: [mileage(1), mileage(1)] } });
    expect(r.problems).toEqual([expect.stringMatching(/the case expects 2 mileage items for V1RTUALV1N0000001 at 2026-11-25T10:00:00.000Z/)]);
  });

  it('reports duplicates on both sides when a case expects both of two clashing readings', async () => {
    const r = await run('dup-both.json', { messageType: 'telemetry', input: readings([1, T], [2, T]), expect: { items: [mileage(1), mileage(2)] } });
    expect(r.problems).toHaveLength(2);
    expect(r.problems.join('\n')).toMatch(/the mapping produces 2 mileage items/);
    expect(r.problems.join('\n')).toMatch(/the case expects 2 mileage items/);
  });

  it('shows a payload that differs field by field, not as two objects', async () => {
    const expected = { vin: VIN, item: 'mileage', payload: { value: 2, unit: 'mi', timestamp: T } };
    const r = await run('diff.json', { messageType: 'telemetry', input: readings([1, T]), expect: { items: [expected] } });
    expect(r.problems).toEqual([
      'mileage of V1RTUALV1N0000001 at 2026-11-25T10:00:00.000Z /value: expected 2, got 1',
      'mileage of V1RTUALV1N0000001 at 2026-11-25T10:00:00.000Z /unit: expected "mi", got "km"',
    ]);
  });

  it('names the catalog item, the mapping line and the raw field of a mapping that fails', async () => {
    // "km" is text here: `km * 1` fails in the mapping (line 2) while building mileage.
    const r = await run('runtime-error.json', { messageType: 'telemetry', input: { vin: VIN, readings: [{ km: 'lots', at: T }] }, expect: { items: [mileage(1)] } });
    expect(r.problems).toEqual([
      expect.stringMatching(/^mapping failed: MAPPING_FAILED: T2001: .*"\*" operator.* \(line 2: \$vin := vin; readings\.\{ "vin": \$vin, "items": \{ "mileage": .*\)$/),
      '  line 2, in the mapping of mileage; raw field readings[0].km',
    ]);
  });

  it('names the raw field an invalid payload value came from', async () => {
    const r = await run('schema.json', { messageType: 'telemetry', input: readings([-5, T]), expect: { items: [mileage(1)] } });
    expect(r.problems).toEqual([
      'mapping failed: SCHEMA_VIOLATION: mileage: /value must be >= 0',
      '  mileage/value = -5 (line 2); raw field readings[0].km',
    ]);
  });

  const malformed: [string, unknown, RegExp][] = [
    ['"expects" for "expect"', { messageType: 'telemetry', input: readings([1, T]), expects: { items: [mileage(1)] } }, /must have required property 'expect'.*additional properties: expects/],
    ['items that are not a list', { messageType: 'telemetry', input: readings([1, T]), expect: { items: {} } }, /\/expect\/items must be array/],
    ['an item without payload', { messageType: 'telemetry', input: readings([1, T]), expect: { items: [{ vin: VIN, item: 'mileage' }] } }, /\/expect\/items\/0 must have required property 'payload'/],
    ['no messageType', { input: readings([1, T]), expect: { items: [mileage(1)] } }, /must have required property 'messageType'/],
    ['an unknown error code', { messageType: 'telemetry', input: readings([1, T]), expect: { error: 'NOPE' } }, /\/expect\/error must be equal to one of the allowed values: DECODE_FAILED/],
    ['a case that is not an object', '[]', /\/ must be object/],
  ];
  for (const [what, content, message] of malformed) {
    it(`returns a problem naming the file for a case with ${what}, without throwing`, async () => {
      const r = await run('malformed.json', content);
      expect(r.name).toBe('virtual/cases-under-test/malformed.json');
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toMatch(/^virtual\/cases-under-test\/malformed\.json is not a mapping case: /);
      expect(r.problems[0]).toMatch(message);
    });
  }
});
