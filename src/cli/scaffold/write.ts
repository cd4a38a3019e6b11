import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Paths } from '../../paths.ts';
import { manifest } from './manifest.ts';
import { fixture, fixtureName, mapping, mappingCase } from './mapping.ts';
import type { ScaffoldPlan } from './plan.ts';
import { readme } from './readme.ts';

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

/** The files of a new manufacturer: [folder ("adapters" or "mappings"), path inside it, content]. */
export function scaffoldFiles(p: ScaffoldPlan): [folder: 'adapters' | 'mappings', path: string, content: string][] {
  return [
    ['adapters', `${p.id}/manifest.json`, json(manifest(p))],
    ['adapters', `${p.id}/README.md`, readme(p)],
    ['adapters', `${p.id}/fixtures/${fixtureName(p)}`, json(fixture(p))],
    ['mappings', `${p.id}/${p.messageType}.jsonata`, mapping(p)],
    ['mappings', `${p.id}/cases/${p.messageType}.json`, json(mappingCase(p))],
  ];
}

/** The two folders of a manufacturer, whether any of them exists already. */
export function existingFolders(paths: Paths, id: string): string[] {
  return [join(paths.adapters, id), join(paths.mappings, id)].filter((d) => existsSync(d));
}

/**
 * Writes the files; never overwrites one (`wx`). Returns their paths as the user would type
 * them (`adapters/<id>/manifest.json`, ...).
 */
export async function writeScaffold(paths: Paths, p: ScaffoldPlan): Promise<string[]> {
  const written: string[] = [];
  for (const [folder, path, content] of scaffoldFiles(p)) {
    const file = join(folder === 'adapters' ? paths.adapters : paths.mappings, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content, { flag: 'wx' });
    written.push(`${folder}/${path}`);
  }
  return written;
}

/** Removes what {@link writeScaffold} wrote (the two folders did not exist before it). */
export async function removeScaffold(paths: Paths, id: string): Promise<void> {
  await rm(join(paths.adapters, id), { recursive: true, force: true });
  await rm(join(paths.mappings, id), { recursive: true, force: true });
}
