import { Ajv } from 'ajv';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { compileMappingFile, DEFAULT_LIMITS, type CompiledMapping, type MappingLimits } from '../mapping/compile.ts';
import type { Adapter, AdapterManifest } from './manifest.ts';
import { manifestSchema } from './manifest-schema.ts';

export interface AdapterRegistry {
  list(): Adapter[];
  get(id: string): Adapter | undefined;
  /** The adapter whose VIN prefix matches (longest prefix wins), or undefined. */
  forVin(vin: string): Adapter | undefined;
}

export interface RegistryOptions {
  /** Default: `mappings/` beside the adapters folder. */
  mappingsDir?: string;
  limits?: MappingLimits;
}

/** A broken adapter: the message names the file at fault. Stops the start. */
export class AdapterLoadError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`adapter ${file}: ${detail}`);
    this.name = 'AdapterLoadError';
  }
}

const validateManifest = new Ajv({ allErrors: true, strict: true }).compile<AdapterManifest>(manifestSchema);

/**
 * Discovers adapters/<id>/manifest.json files and checks them: the manifest's shape, its id
 * against its folder, its items against the catalog, VIN prefixes unclaimed by another
 * adapter, and every mapping file (it must exist and compile). A broken one stops the start.
 */
export async function loadAdapterRegistry(
  adaptersDir: string,
  catalogItems: ReadonlySet<string>,
  opts: RegistryOptions = {},
): Promise<AdapterRegistry> {
  const mappingsDir = opts.mappingsDir ?? resolve(adaptersDir, '..', 'mappings');
  const entries = await readdir(adaptersDir, { withFileTypes: true });
  const adapters: Adapter[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = join(adaptersDir, entry.name);
    const file = join(dir, 'manifest.json');
    if (!existsSync(file)) throw new AdapterLoadError(file, 'is missing (every adapter folder needs a manifest.json)');
    adapters.push(await loadAdapter(dir, file, entry.name, catalogItems, join(mappingsDir, entry.name), opts.limits ?? DEFAULT_LIMITS));
  }
  checkPrefixesDisjoint(adapters);
  return createRegistry(adapters);
}

async function loadAdapter(
  dir: string,
  file: string,
  folder: string,
  catalogItems: ReadonlySet<string>,
  mappingDir: string,
  limits: MappingLimits,
): Promise<Adapter> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new AdapterLoadError(file, `is not valid JSON (${(err as Error).message})`);
  }
  if (!validateManifest(json)) {
    const detail = (validateManifest.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
    throw new AdapterLoadError(file, `does not match the manifest schema: ${detail}`);
  }
  const manifest = json;
  if (manifest.id !== folder) throw new AdapterLoadError(file, `id "${manifest.id}" differs from its folder name "${folder}"`);
  const unknown = manifest.items.filter((i) => !catalogItems.has(i));
  if (unknown.length > 0) throw new AdapterLoadError(file, `items not in the catalog: ${unknown.join(', ')}`);
  if (manifest.transport.kind === 'mqtt') {
    const lastLevels = manifest.transport.topics.map((t) => t.split('/').at(-1) ?? '');
    const unmapped = lastLevels.filter((t) => !(t in manifest.messageTypes));
    if (unmapped.length > 0) throw new AdapterLoadError(file, `topics end in message types without a mapping: ${unmapped.join(', ')}`);
  }
  const mappings = new Map<string, CompiledMapping>();
  for (const [type, { mapping }] of Object.entries(manifest.messageTypes)) {
    const mappingFile = join(mappingDir, mapping);
    try {
      mappings.set(type, await compileMappingFile(mappingFile, limits));
    } catch (err) {
      throw new AdapterLoadError(file, `message type "${type}": ${(err as Error).message}`);
    }
  }
  return { manifest, dir, mappings };
}

function checkPrefixesDisjoint(adapters: Adapter[]): void {
  const owner = new Map<string, string>();
  for (const a of adapters) {
    for (const p of a.manifest.vinPrefixes) {
      const other = owner.get(p);
      if (other) throw new AdapterLoadError(join(a.dir, 'manifest.json'), `VIN prefix ${p} is claimed by "${other}" too`);
      owner.set(p, a.manifest.id);
    }
  }
}

function createRegistry(adapters: Adapter[]): AdapterRegistry {
  const byId = new Map(adapters.map((a) => [a.manifest.id, a]));
  const prefixes = adapters
    .flatMap((a) => a.manifest.vinPrefixes.map((p) => ({ p, a })))
    .sort((x, y) => y.p.length - x.p.length);
  return {
    list: () => [...adapters],
    get: (id) => byId.get(id),
    forVin: (vin) => prefixes.find(({ p }) => vin.startsWith(p))?.a,
  };
}
