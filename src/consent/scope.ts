import { declaredItems } from '../adapters/declared-items.ts';
import type { Adapter } from '../adapters/manifest.ts';

/**
 * The items a consent asks a manufacturer for: the subscription's items that this manufacturer
 * can supply. A subscription may cover more items than one manufacturer has (e.g. a fleet of
 * several brands); asking for an item the manufacturer does not have could never be granted, so
 * every such consent would end in scope_mismatch. The scope check requires all of these.
 */
export function requestedItems(subscriptionItems: readonly string[], adapter: Adapter): string[] {
  const supplied = declaredItems(adapter);
  return subscriptionItems.filter((i) => supplied.has(i));
}

/**
 * The scope a withdrawal asks a manufacturer for by default: proof that the user controls the
 * vehicle, and no data. The simulated servers offer it under this name; a manufacturer that
 * names it otherwise declares its name as `authorization.verifyScope` in its manifest.
 */
export const VERIFY_SCOPE = 'vehicle:verify';
