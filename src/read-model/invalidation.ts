/**
 * What a store write makes stale in the delivery read model (src/read-model/read-model.ts):
 * - `keys`: API keys, consumers or subscriptions (authentication answers);
 * - `access`: the activations and consents of one subscription;
 * - `data`: the latest values of some VINs;
 * - `all`: everything (a write whose scope is not one subscription, e.g. a GDPR erasure);
 * - `erased`: a GDPR erasure of a VIN has ended. VIN-wide: everything, and the VIN itself, since
 *   no process may keep it in memory (its pseudonym memo, src/crypto.ts). In one subscription
 *   (`subscriptionId`): that subscription's access answers, and what the process keeps of the
 *   VIN in that subscription (its rate-limit counter); the VIN stays in use by the others.
 */
export type Invalidation =
  | { kind: 'keys' }
  | { kind: 'all' }
  | { kind: 'access'; subscriptionId: string }
  | { kind: 'data'; vins: readonly string[] }
  | { kind: 'erased'; vin: string; subscriptionId?: string };

/**
 * The message text on the Redis channel. VINs travel as their pseudonyms (no
 * VIN in what passes through Redis); the receiver knows the pseudonyms of the VINs it caches.
 */
export function encodeInvalidation(inv: Invalidation, pseudonym: (vin: string) => string): string {
  switch (inv.kind) {
    case 'keys':
      return 'k';
    case 'all':
      return '*';
    case 'access':
      return `a ${inv.subscriptionId}`;
    case 'data':
      return `d ${inv.vins.map(pseudonym).join(' ')}`;
    case 'erased':
      return inv.subscriptionId === undefined ? `e ${pseudonym(inv.vin)}` : `e ${pseudonym(inv.vin)} ${inv.subscriptionId}`;
  }
}

/** A decoded message: VINs come as pseudonyms. Unknown text decodes to `all` (fail safe). */
export type ReceivedInvalidation =
  | { kind: 'keys' }
  | { kind: 'all' }
  | { kind: 'access'; subscriptionId: string }
  | { kind: 'data'; pseudonyms: string[] }
  | { kind: 'erased'; pseudonym: string; subscriptionId?: string };

export function decodeInvalidation(text: string): ReceivedInvalidation {
  if (text === 'k') return { kind: 'keys' };
  if (text.startsWith('a ') && text.length > 2) return { kind: 'access', subscriptionId: text.slice(2) };
  if (text.startsWith('d ')) return { kind: 'data', pseudonyms: text.slice(2).split(' ').filter(Boolean) };
  if (text.startsWith('e ')) {
    const [p, subscriptionId, more] = text.slice(2).split(' ');
    if (p && more === undefined) return subscriptionId ? { kind: 'erased', pseudonym: p, subscriptionId } : { kind: 'erased', pseudonym: p };
  }
  return { kind: 'all' };
}
