import { randomUUID } from 'node:crypto';
import { matchesHash, randomToken, sha256Hex } from '../crypto.ts';
import type { ApiKeyRecord, Consumer, Store } from '../store/contract.ts';

/** Recognisable prefix, so secret scanners and people can tell what leaked. */
export const API_KEY_PREFIX = 'cvd_live_';

/** What a key we issue looks like: the prefix and 43 base64url characters (256 bits). */
export const API_KEY_PATTERN = /^cvd_live_[A-Za-z0-9_-]{43}$/;

/** Longer presented keys are refused before any hashing or lookup. */
export const MAX_PRESENTED_KEY_LENGTH = 512;

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
 * The consumer an API key belongs to, or null for an unknown, revoked or malformed key; never
 * throws on odd input. The presented key is hashed and looked up by its hash, so the clear key
 * is never stored; the found record is then checked again with a constant-time comparison of
 * the two digests in constant time, without throwing, which costs nothing and protects against an engine whose
 * lookup is not an exact match (e.g. a case-insensitive collation).
 */
export async function authenticateApiKey(
  store: Store,
  presented: string,
): Promise<{ consumer: Consumer; key: ApiKeyRecord } | null> {
  if (presented.length === 0 || presented.length > MAX_PRESENTED_KEY_LENGTH) return null;
  const key = await store.consumers.findApiKeyByHash(sha256Hex(presented));
  if (!key || !matchesHash(presented, key.keyHash) || key.revokedAt !== null) return null;
  const consumer = await store.consumers.get(key.consumerId);
  return consumer ? { consumer, key } : null;
}
