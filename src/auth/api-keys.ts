import { randomUUID } from 'node:crypto';
import { randomToken, sha256Hex } from '../crypto.ts';
import type { ApiKeyRecord, Consumer, Store } from '../store/contract.ts';

/** Recognisable prefix, so secret scanners and people can tell what leaked. */
export const API_KEY_PREFIX = 'cvd_live_';

/** A new API key: the clear value (shown once) and the record to store (hash only). */
export function newApiKey(consumerId: string, at: Date): { apiKey: string; record: ApiKeyRecord } {
  const apiKey = `${API_KEY_PREFIX}${randomToken(32)}`;
  return {
    apiKey,
    record: {
      keyId: randomUUID(),
      consumerId,
      keyHash: sha256Hex(apiKey),
      displayPrefix: apiKey.slice(0, API_KEY_PREFIX.length + 4),
      createdAt: at.toISOString(),
      revokedAt: null,
    },
  };
}

/**
 * The consumer an API key belongs to, or null for an unknown or revoked key. The presented
 * key is hashed and looked up by its hash, so the clear key is never compared or stored.
 */
export async function authenticateApiKey(
  store: Store,
  presented: string,
): Promise<{ consumer: Consumer; key: ApiKeyRecord } | null> {
  if (presented.length === 0 || presented.length > 512) return null;
  const key = await store.consumers.findApiKeyByHash(sha256Hex(presented));
  if (!key || key.revokedAt !== null) return null;
  const consumer = await store.consumers.get(key.consumerId);
  return consumer ? { consumer, key } : null;
}
