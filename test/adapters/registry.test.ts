import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdapterLoadError, loadAdapterRegistry } from '../../src/adapters/registry.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { loadConfig } from '../../src/config.ts';
import { manufacturerAuth } from '../../src/consent/manufacturer-auth.ts';
import { defaultPaths } from '../../src/services.ts';
import { copyProject } from '../pipeline/harness.ts';

const catalogItems = async () => new Set((await loadCatalog(defaultPaths().catalog)).list().map((e) => e.technicalName));

describe('adapter registry', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  afterEach(() => project?.cleanup());

  const load = async () => loadAdapterRegistry(project!.paths.adapters, await catalogItems(), { mappingsDir: project!.paths.mappings });
  const manifestFile = (id: string) => join(project!.paths.adapters, id, 'manifest.json');
  const editManifest = (id: string, edit: (m: Record<string, unknown>) => void) => {
    const m = JSON.parse(readFileSync(manifestFile(id), 'utf8')) as Record<string, unknown>;
    edit(m);
    writeFileSync(manifestFile(id), JSON.stringify(m));
  };

  it('discovers every adapter folder, compiles its mappings once, and finds the adapter of a VIN', async () => {
    project = copyProject();
    const reg = await load();
    expect(reg.list().map((a) => a.manifest.id)).toEqual(['borealis', 'virtual']);
    expect([...reg.get('virtual')!.mappings.keys()].sort()).toEqual(['event', 'telemetry']);
    expect(reg.get('borealis')!.mappings.get('incident')!.version).toMatch(/^incident\.jsonata@[0-9a-f]{12}$/);
    expect(reg.forVin('V1RTUALV1N0000001')?.manifest.id).toBe('virtual');
    expect(reg.forVin('BRLAU1EV0N1000001')?.manifest.id).toBe('borealis');
    expect(reg.forVin('WVWZZZ1JZXW000001')).toBeUndefined();
  });

  it('lets the longest VIN prefix win', async () => {
    project = copyProject();
    const dir = join(project.paths.adapters, 'borealis-eu');
    const mappings = join(project.paths.mappings, 'borealis-eu');
    cpSync(join(project.paths.adapters, 'borealis'), dir, { recursive: true });
    cpSync(join(project.paths.mappings, 'borealis'), mappings, { recursive: true });
    editManifest('borealis-eu', (m) => Object.assign(m, { id: 'borealis-eu', vinPrefixes: ['BRLE'] }));
    const reg = await load();
    expect(reg.forVin('BRLEU1EV0N1000001')?.manifest.id).toBe('borealis-eu');
    expect(reg.forVin('BRLAU1EV0N1000001')?.manifest.id).toBe('borealis');
  });

  it('takes the scope a withdrawal asks for from the manifest, vehicle:verify when it names none', async () => {
    project = copyProject();
    editManifest('borealis', (m) => ((m.authorization as Record<string, unknown>).verifyScope = 'urn:borealis:owner-check'));
    const reg = await load();
    const config = loadConfig({});
    expect(manufacturerAuth(config, reg.get('borealis')!).verifyScope).toBe('urn:borealis:owner-check');
    expect(manufacturerAuth(config, reg.get('virtual')!).verifyScope).toBe('vehicle:verify');
  });

  const broken: [string, (p: NonNullable<typeof project>) => void, RegExp][] = [
    ['a manifest that is not JSON', (p) => writeFileSync(join(p.paths.adapters, 'borealis', 'manifest.json'), '{ nope'), /borealis\/manifest\.json: is not valid JSON/],
    ['a missing manifest', (p) => rmSync(join(p.paths.adapters, 'borealis', 'manifest.json')), /borealis\/manifest\.json: is missing/],
    ['a manifest without transport', () => editManifest('borealis', (m) => delete m.transport), /borealis\/manifest\.json: does not match the manifest schema: .*transport/],
    ['an id that is not the folder name', () => editManifest('borealis', (m) => (m.id = 'boreal')), /borealis\/manifest\.json: id "boreal" differs/],
    ['an item not in the catalog', () => editManifest('borealis', (m) => (m.items = ['mileage', 'warpdrive'])), /borealis\/manifest\.json: items not in the catalog: warpdrive/],
    ['a VIN prefix claimed twice', () => editManifest('virtual', (m) => (m.vinPrefixes = ['V1RTUALV1N', 'BRL'])), /virtual\/manifest\.json: VIN prefix BRL is claimed by "borealis" too/],
    ['a topic whose message type has no mapping', () => editManifest('virtual', (m) => ((m.transport as { topics: string[] }).topics.push('virtual/v1/+/status'))), /virtual\/manifest\.json: topics end in message types without a mapping: status/],
    ['a missing mapping file', (p) => rmSync(join(p.paths.mappings, 'borealis', 'incident.jsonata')), /borealis\/manifest\.json: message type "incident": mapping .*incident\.jsonata does not compile: cannot be read/],
    ['a verify scope that is not one OAuth scope token', () => editManifest('borealis', (m) => ((m.authorization as Record<string, unknown>).verifyScope = 'vehicle verify')), /borealis\/manifest\.json: does not match the manifest schema: .*verifyScope/],
    ['a mapping that does not compile', (p) => writeFileSync(join(p.paths.mappings, 'virtual', 'event.jsonata'), '{ "vin": vin, '), /virtual\/manifest\.json: message type "event": mapping .*event\.jsonata does not compile: .*at character/],
  ];
  for (const [what, breakIt, message] of broken) {
    it(`stops the start on ${what}, naming the file`, async () => {
      project = copyProject();
      breakIt(project);
      const err = await load().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AdapterLoadError);
      expect((err as Error).message).toMatch(message);
    });
  }
});
