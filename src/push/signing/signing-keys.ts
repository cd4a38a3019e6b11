import type { SecretBox } from '../../crypto.ts';
import type { WebhookRecord } from '../../store/contract.ts';
import { secretKey } from './signing.ts';

/**
 * Sealed → clear, memoised. The mapping never changes (a new secret is a new sealed value), so
 * the cache is never stale; it spares an AES-GCM decryption per delivery. Bounded.
 */
export function memoUnseal<T>(secrets: SecretBox, convert: (clear: string) => T): (sealed: string) => T {
  const cache = new Map<string, T>();
  return (sealed) => {
    let value = cache.get(sealed);
    if (value === undefined) {
      if (cache.size >= 10_000) cache.clear();
      value = convert(secrets.decrypt(sealed));
      cache.set(sealed, value);
    }
    return value;
  };
}

/**
 * The HMAC keys a webhook signs with at `now`: the current secret, plus a rotated-out one until
 * its overlap window ends (both signatures are sent, space-separated).
 */
export function createSigningKeys(secrets: SecretBox): (webhook: WebhookRecord, now: Date) => Buffer[] {
  const keyOf = memoUnseal(secrets, secretKey);
  return (webhook, now) => {
    const at = now.toISOString();
    return webhook.secrets.filter((s) => s.expiresAt === null || s.expiresAt > at).map((s) => keyOf(s.sealed));
  };
}
