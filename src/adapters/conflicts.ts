import { join } from 'node:path';
import { AdapterLoadError } from './load-error.ts';
import type { Adapter } from './manifest.ts';

/**
 * What no single manifest shows: two adapters claiming the same VIN prefix, the same login at
 * the embedded broker (the second would replace the first's: src/transports/mqtt/embedded-broker.ts), or
 * topic filters that one topic can match (the external-broker subscriber would give that
 * message to whichever adapter comes first: src/transports/mqtt/broker-subscriber.ts). Throws naming
 * both manifests.
 */
export function checkConflicts(adapters: Adapter[]): void {
  const fileOf = (a: Adapter) => join(a.dir, 'manifest.json');
  const prefixOwner = new Map<string, Adapter>();
  const loginOwner = new Map<string, Adapter>();
  const filters: { filter: string; adapter: Adapter }[] = [];
  for (const a of adapters) {
    for (const p of a.manifest.vinPrefixes) {
      const other = prefixOwner.get(p);
      if (other) throw new AdapterLoadError(fileOf(a), `VIN prefix ${p} is claimed by "${other.manifest.id}" too (${fileOf(other)})`);
      prefixOwner.set(p, a);
    }
    const t = a.manifest.transport;
    if (t.kind !== 'mqtt') continue;
    const other = loginOwner.get(t.username);
    if (other) throw new AdapterLoadError(fileOf(a), `transport.username "${t.username}" is already the broker login of ${fileOf(other)}; each manufacturer needs its own`);
    loginOwner.set(t.username, a);
    for (const filter of t.topics) {
      const clash = filters.find((f) => f.adapter !== a && filtersOverlap(f.filter, filter));
      if (clash) {
        throw new AdapterLoadError(
          fileOf(a),
          `topic filter "${filter}" overlaps "${clash.filter}" of ${fileOf(clash.adapter)}: a topic both match could reach either manufacturer; give each its own first level`,
        );
      }
    }
    filters.push(...t.topics.map((filter) => ({ filter, adapter: a })));
  }
}

/** Whether one topic can match both filters (`+` is one whole level; the schema allows no `#`). */
export function filtersOverlap(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  return x.length === y.length && x.every((level, i) => level === y[i] || level === '+' || y[i] === '+');
}
