import { isDeepStrictEqual } from 'node:util';
import type { Adapter, AdapterManifest } from '../adapters/manifest.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { listCaseFiles, runCase } from './cases.ts';

/**
 * The manifest sections a running process cannot take over: the transports, authorization
 * servers and VIN ownership are wired into the broker, the pollers and the consent routes when
 * they start. A change to one of them, or a manufacturer added or removed, takes a restart.
 */
const RESTART_ONLY: (keyof AdapterManifest)[] = ['vinPrefixes', 'transport', 'authorization', 'activation'];

/** One message type's mapping before and after (its version: file name and content hash), null where it has none. */
export interface MappingChange {
  messageType: string;
  from: string | null;
  to: string | null;
}

export interface ManufacturerChange {
  manufacturer: string;
  /** The manifest's sections that changed and a reload takes over (name, items, messageTypes). */
  manifest: string[];
  mappings: MappingChange[];
}

export interface ReloadCheck {
  changes: ManufacturerChange[];
  /** Why the candidate cannot be served; empty when it can. */
  problems: string[];
  /** How many cases ran (every case of every changed manufacturer), and passed. */
  cases: { ran: number; passed: number };
}

const versions = (a: Adapter | undefined) => new Map([...(a?.mappings ?? new Map())].map(([type, m]) => [type, m.version] as const));

function changeOf(id: string, before: Adapter, after: Adapter): ManufacturerChange | null {
  const [was, now] = [versions(before), versions(after)];
  const mappings = [...new Set([...was.keys(), ...now.keys()])]
    .sort()
    .filter((t) => was.get(t) !== now.get(t))
    .map((messageType) => ({ messageType, from: was.get(messageType) ?? null, to: now.get(messageType) ?? null }));
  const manifest = (['name', 'items', 'messageTypes'] as const).filter((k) => !isDeepStrictEqual(before.manifest[k], after.manifest[k]));
  return mappings.length || manifest.length ? { manufacturer: id, manifest, mappings } : null;
}

/**
 * Whether a process may serve `candidate` (the adapters and mappings as they are on disk now)
 * instead of `current`: what changed, and the problems that keep the current version. Every
 * case of each changed manufacturer (mappings/<id>/cases/) must pass against the candidate.
 */
export async function checkReload(current: AdapterRegistry, candidate: AdapterRegistry, catalog: Catalog, mappingsDir: string): Promise<ReloadCheck> {
  const problems: string[] = [];
  const changes: ManufacturerChange[] = [];
  const ids = [...new Set([...current.list(), ...candidate.list()].map((a) => a.manifest.id))].sort();
  for (const id of ids) {
    const [before, after] = [current.get(id), candidate.get(id)];
    if (!before || !after) {
      problems.push(`manufacturer "${id}" was ${before ? 'removed' : 'added'}: that takes a restart`);
      continue;
    }
    const restart = RESTART_ONLY.filter((k) => !isDeepStrictEqual(before.manifest[k], after.manifest[k]));
    if (restart.length) problems.push(`adapters/${id}/manifest.json: ${restart.join(', ')} changed: that takes a restart`);
    const change = changeOf(id, before, after);
    if (change) changes.push(change);
  }
  const changed = new Set(changes.map((c) => c.manufacturer));
  const files = (await listCaseFiles(mappingsDir)).filter(([m]) => changed.has(m));
  for (const id of changed) if (!files.some(([m]) => m === id)) problems.push(`${id} has no case (mappings/${id}/cases/): a changed mapping is served only once cases pass`);
  const results = await Promise.all(files.map(([m, file]) => runCase(candidate, catalog, m, file, mappingsDir)));
  for (const r of results) for (const p of r.problems) problems.push(`case ${r.name}: ${p}`);
  return { changes, problems, cases: { ran: results.length, passed: results.filter((r) => r.problems.length === 0).length } };
}
