import type { PortalItem } from '../../../consent/views.ts';

/**
 * The topics the consent portal groups a long list of items by, so the page stays usable: a user asked
 * for every catalog item (the demo consumer's 75) sees a handful of topics, each opened on demand,
 * and the Approve button within reach. Decided by the item's technical name, first match wins;
 * an item no rule knows goes to "Other data", so a new catalog item is never hidden.
 */
const TOPICS: { name: string; match: RegExp }[] = [
  { name: 'Accidents and emergency calls', match: /^(accident|crash)|teleservice/ },
  { name: 'Position and driving', match: /^(geolocation|vehicle(speed|heading)|acceleration|averagedistance|mileage|ignition|engine)/ },
  { name: 'Fuel, battery and charging', match: /fuel(level|remaining)|^soc|charg|battery|energy|diesel|deepsleep/ },
  { name: 'Doors, windows and locks', match: /door|window|lock|trunk|hood|convertibletop/ },
  { name: 'Maintenance and diagnostics', match: /^dtc|brake|service|checkcontrol|coolant/ },
  { name: 'Vehicle and surroundings', match: /^(basicvehicledata|environmental)/ },
];
const OTHER = 'Other data';

/** Above this many items the portal shows them grouped and collapsed. */
export const GROUP_ABOVE = 8;

export interface ItemTopic {
  name: string;
  items: PortalItem[];
}

/** The items by topic, in the order of TOPICS (then "Other data"), each topic's items as given. */
export function groupByTopic(items: PortalItem[]): ItemTopic[] {
  const groups = new Map<string, PortalItem[]>([...TOPICS.map((t) => [t.name, []] as [string, PortalItem[]]), [OTHER, []]]);
  for (const item of items) groups.get(TOPICS.find((t) => t.match.test(item.technicalName))?.name ?? OTHER)!.push(item);
  return [...groups].filter(([, list]) => list.length > 0).map(([name, list]) => ({ name, items: list }));
}
