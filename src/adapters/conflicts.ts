import { join } from 'node:path';
import { AdapterLoadError } from './load-error.ts';
import { transportKind } from '../transports/kinds.ts';
import type { Adapter } from './manifest.ts';

/**
 * What no single manifest shows: two adapters claiming the same VIN prefix, or two of one
 * transport kind that cannot run side by side (the same login at the embedded broker, topic
 * filters one topic can match: each kind says, in src/transports/<kind>/kind.ts). Throws naming
 * both manifests.
 */
export function checkConflicts(adapters: Adapter[]): void {
  const fileOf = (a: Adapter) => join(a.dir, 'manifest.json');
  const prefixOwner = new Map<string, Adapter>();
  for (const [i, a] of adapters.entries()) {
    for (const p of a.manifest.vinPrefixes) {
      const other = prefixOwner.get(p);
      if (other) throw new AdapterLoadError(fileOf(a), `VIN prefix ${p} is claimed by "${other.manifest.id}" too (${fileOf(other)})`);
      prefixOwner.set(p, a);
    }
    const t = a.manifest.transport;
    const conflict = transportKind(t).conflict;
    if (!conflict) continue;
    for (const other of adapters.slice(0, i)) {
      if (other.manifest.transport.kind !== t.kind) continue;
      const problem = conflict(t, other.manifest.transport, fileOf(other));
      if (problem) throw new AdapterLoadError(fileOf(a), problem);
    }
  }
}
