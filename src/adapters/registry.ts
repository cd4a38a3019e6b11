import { Ajv } from 'ajv';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { formatAjvError } from '../catalog/ajv.ts';
import { compileMappingFile, DEFAULT_LIMITS, type CompiledMapping, type EngineOptions, type MappingLimits } from '../mapping/compile.ts';
import { checkConflicts } from './conflicts.ts';
import { AdapterLoadError } from './load-error.ts';
import type { Adapter, AdapterManifest } from './manifest.ts';
import { manifestProblems } from './manifest-rules.ts';
import { manifestSchema } from './manifest-schema.ts';

export { AdapterLoadError };

export interface AdapterRegistry {
  list(): Adapter[];
  get(id: string): Adapter | undefined;
  /** The adapter whose VIN prefix matches (longest prefix wins), or undefined. */
  forVin(vin: string): Adapter | undefined;
  /** Ends what evaluating its mappings holds (the interpreter's thread), if anything. */
  close?(): Promise<void>;
}

export interface RegistryOptions {
  /** Default: `mappings/` beside the adapters folder. */
  mappingsDir?: string;
  limits?: MappingLimits;
  /** MAPPING_COMPILER; default: compiled where the translator can. */
  engine?: EngineOptions;
}

const validateManifest = new Ajv({ allErrors: true, strict: true, discriminator: true }).compile<AdapterManifest>(manifestSchema);

/**
 * Discovers adapters/<id>/manifest.json files and checks them: the manifest's shape and rules
 * (./manifest-rules.ts), its id against its folder, its items against the catalog, conflicts
 * with other adapters (./conflicts.ts: VIN prefixes, broker logins, topic filters), and every
 * mapping file (it must exist and compile). A broken one stops the start.
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
    adapters.push(await loadAdapter(dir, file, entry.name, catalogItems, join(mappingsDir, entry.name), opts.limits ?? DEFAULT_LIMITS, opts.engine));
  }
  checkConflicts(adapters);
  return createRegistry(adapters);
}

async function loadAdapter(
  dir: string,
  file: string,
  folder: string,
  catalogItems: ReadonlySet<string>,
  mappingDir: string,
  limits: MappingLimits,
  engine: EngineOptions | undefined,
): Promise<Adapter> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new AdapterLoadError(file, `is not valid JSON (${(err as Error).message})`);
  }
  if (!validateManifest(json)) {
    // The discriminator's own complaint repeats what the `kind`/`mode` enum says; lines repeat too.
    const errors = (validateManifest.errors ?? []).filter((e) => e.keyword !== 'discriminator');
    const detail = [...new Set(errors.map(formatAjvError))].join('; ');
    throw new AdapterLoadError(file, `does not match the manifest schema: ${detail}`);
  }
  const manifest = json;
  if (manifest.id !== folder) throw new AdapterLoadError(file, `id "${manifest.id}" differs from its folder name "${folder}"`);
  const unknown = manifest.items.filter((i) => !catalogItems.has(i));
  if (unknown.length > 0) throw new AdapterLoadError(file, `items not in the catalog: ${unknown.join(', ')}`);
  const problems = manifestProblems(manifest);
  if (problems.length > 0) throw new AdapterLoadError(file, problems.join('; '));
  const mappings = new Map<string, CompiledMapping>();
  for (const [type, { mapping }] of Object.entries(manifest.messageTypes)) {
    const mappingFile = join(mappingDir, mapping);
    try {
      mappings.set(type, await compileMappingFile(mappingFile, limits, engine));
    } catch (err) {
      throw new AdapterLoadError(file, `message type "${type}": ${(err as Error).message}`);
    }
  }
  return { manifest, dir, mappings };
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
