import type { CatalogEntry } from '../catalog/catalog.ts';

/**
 * The catalog's items by topic, for the subscription form: the catalog itself has no topic (its
 * entries have exactly the fields the spec gives them), so the console groups them by name.
 * The first topic whose rule matches takes an item; an item no rule matches is under "Other".
 */
const TOPICS: [topic: string, matches: (e: CatalogEntry) => boolean][] = [
  ['Crashes and emergency calls', (e) => e.deliveryMethod === 'push' || /^(crash|accident)/.test(e.technicalName)],
  ['Position and driving', (e) => /^(geolocation|vehiclespeed|vehicleheading|acceleration|mileage|averagedistance)/.test(e.technicalName)],
  ['Battery and charging', (e) => /^(soc|charg|battery|backupbattery|accessorybattery|energy)/.test(e.technicalName)],
  ['Engine, fuel and exhaust', (e) => /^(engine|fuel|diesel|coolant|ignition)/.test(e.technicalName)],
  ['Doors, windows and locks', (e) => /(door|window|lock|hood|trunk|convertibletop)/.test(e.technicalName)],
  ['Service and diagnostics', (e) => /(brake|service|conditionbased|dtc|checkcontrol|deepsleep)/.test(e.technicalName)],
];
export const OTHER = 'Other';

/** Every item once, under its topic, topics in the order above (Other last), items by name. */
export function itemsByTopic(entries: readonly CatalogEntry[]): [topic: string, items: CatalogEntry[]][] {
  const out = new Map<string, CatalogEntry[]>([...TOPICS.map(([t]) => [t, []] as [string, CatalogEntry[]]), [OTHER, []]]);
  for (const e of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    const topic = TOPICS.find(([, m]) => m(e))?.[0] ?? OTHER;
    out.get(topic)!.push(e);
  }
  return [...out].filter(([, items]) => items.length > 0);
}
