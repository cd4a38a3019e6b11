import type { Adapter } from './manifest.ts';

const declared = new WeakMap<Adapter, ReadonlySet<string>>();

/**
 * The catalog items an adapter's manifest declares, as a set made once per adapter: the
 * pipeline checks every harmonized item against it, delivery every vehicle's items, consent a
 * subscription's items. A reloaded adapter is a new object, so it gets its own set.
 */
export function declaredItems(adapter: Adapter): ReadonlySet<string> {
  let set = declared.get(adapter);
  if (!set) declared.set(adapter, (set = new Set(adapter.manifest.items)));
  return set;
}
