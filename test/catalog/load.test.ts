import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load.ts';
import { defaultPaths } from '../../src/paths.ts';

const REAL = defaultPaths().catalog;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the real catalog in a temp dir, with `edit` applied to it. */
function brokenCopy(edit: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-test-'));
  dirs.push(dir);
  cpSync(REAL, dir, { recursive: true });
  edit(dir);
  return dir;
}

function editEntry(dir: string, file: string, change: (entry: Record<string, unknown>) => void): void {
  const path = join(dir, file);
  const entry = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  change(entry);
  writeFileSync(path, JSON.stringify(entry));
}
const schemaOf = (entry: Record<string, unknown>) => entry.schema as Record<string, unknown>;

describe('loadCatalog', () => {
  it('loads every catalog file of the repository', async () => {
    const catalog = await loadCatalog(REAL);
    // 43 of spec 2.2, 6 of catalog version 2, 25 of version 4.
    expect(catalog.list()).toHaveLength(74);
  });

  const broken: [string, string, (dir: string) => void, RegExp][] = [
    ['bad JSON', 'batteryvoltage.json', (d) => writeFileSync(join(d, 'batteryvoltage.json'), '{"technicalName": "batteryvoltage",'), /not valid JSON/],
    ['a missing field', 'chargingstatus.json', (d) => editEntry(d, 'chargingstatus.json', (e) => delete e.description), /must have required property 'description'/],
    ['a technicalName other than the file name', 'mileage.json', (d) => editEntry(d, 'mileage.json', (e) => (e.technicalName = 'odometer')), /technicalName "odometer" must equal the file name "mileage"/],
    ['a payload schema with an unknown keyword', 'fuellevel.json', (d) => editEntry(d, 'fuellevel.json', (e) => (schemaOf(e).requried = ['value'])), /invalid payload schema.*requried/],
    ['a payload schema with an invalid type', 'crashseverity.json', (d) => editEntry(d, 'crashseverity.json', (e) => ((schemaOf(e).properties as Record<string, Record<string, unknown>>).value!.type = 'numbr')), /invalid payload schema/],
    ['a required field the schema does not define', 'coolanttemperature.json', (d) => editEntry(d, 'coolanttemperature.json', (e) => (schemaOf(e).required = ['value', 'unit', 'timestmap'])), /invalid payload schema.*timestmap/],
    ['a payload that is not an object', 'enginestatus.json', (d) => editEntry(d, 'enginestatus.json', (e) => (e.schema = { type: 'string' })), /\/schema\/type must be equal to one of the allowed values: object/],
    ['an event flag on a pull item', 'sochighlevel.json', (d) => editEntry(d, 'sochighlevel.json', (e) => (e.event = true)), /event: true is only allowed on push items/],
    ['a wrong lifecycleStatus', 'acceleration.json', (d) => editEntry(d, 'acceleration.json', (e) => (e.lifecycleStatus = 'DRAFT')), /\/lifecycleStatus must be equal to one of the allowed values: PUBLISHED/],
    ['personal data', 'geolocation.json', (d) => editEntry(d, 'geolocation.json', (e) => (e.personalData = true)), /\/personalData must be equal to one of the allowed values: false/],
    ['a version that is not an integer', 'averagedistance.json', (d) => editEntry(d, 'averagedistance.json', (e) => (e.version = '2')), /\/version must be integer/],
    ['an updatedAt that is not a date-time', 'vehiclespeed.json', (d) => editEntry(d, 'vehiclespeed.json', (e) => (e.updatedAt = 'last week')), /\/updatedAt must match format "date-time"/],
    ['an unknown metadata field', 'chargingpower.json', (d) => editEntry(d, 'chargingpower.json', (e) => (e.owner = 'team a')), /must NOT have additional properties: owner/],
  ];

  it.each(broken)('stops on %s, naming the file', async (_what, file, edit, why) => {
    const dir = brokenCopy(edit);
    const error = await loadCatalog(dir).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toContain(join(dir, file));
    expect(error!.message).toMatch(why);
  });

  it('stops on a missing or empty folder, naming it', async () => {
    const missing = join(tmpdir(), 'no-such-catalog-folder');
    await expect(loadCatalog(missing)).rejects.toThrow(missing);
    const empty = mkdtempSync(join(tmpdir(), 'catalog-empty-'));
    dirs.push(empty);
    mkdirSync(join(empty, 'notes'));
    writeFileSync(join(empty, 'README.md'), '# not an item');
    await expect(loadCatalog(empty)).rejects.toThrow(`Catalog folder ${empty} holds no *.json data item files`);
  });

  it('ignores files that are not *.json (the README) and hands out frozen entries', async () => {
    const catalog = await loadCatalog(REAL);
    const entry = catalog.get('batteryvoltage')!;
    expect(Object.isFrozen(entry)).toBe(true);
    expect(Object.isFrozen(entry.schema)).toBe(true);
    expect(() => {
      (entry as { description: string }).description = 'changed';
    }).toThrow(TypeError);
  });
});
