import type { SecretBox } from '../crypto.ts';
import type { WebhookRecord } from '../store/contract.ts';
import { secretKey } from './signing.ts';

/**
 * The HMAC keys a webhook signs with at `now`: the current secret, plus a rotated-out one until
 * its overlap window ends (both signatures are sent, space-separated). Sealed → key results are
 * memoised: the mapping never changes, and it spares an AES-GCM decryption per delivery.
 */
export function createSigningKeys(secrets: SecretBox) {
  const cache = new Map<string, Buffer>();
  const keyOf = (sealed: string): Buffer => {
    let key = cache.get(sealed);
    if (!key) {
      if (cache.size >= 10_000) cache.clear();
      key = secretKey(secrets.decrypt(sealed));
      cache.set(sealed, key);
    }
    return key;
  };
  return (webhook: WebhookRecord, now: Date): Buffer[] => {
    const at = now.toISOString();
    return webhook.secrets.filter((s) => s.expiresAt === null || s.expiresAt > at).map((s) => keyOf(s.sealed));
  };
}
