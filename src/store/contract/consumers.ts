/** Consumers (data consumers, "partners") and their API keys. Keys are stored only as SHA-256. */
export interface Consumer {
  consumerId: string;
  name: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  keyId: string;
  consumerId: string;
  /** SHA-256 hex of the whole key. Unique. */
  keyHash: string;
  /** First characters of the key, safe to show (e.g. "cvd_live_AbCd"). */
  displayPrefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface ConsumerRepo {
  create(consumer: Consumer): Promise<void>;
  get(consumerId: string): Promise<Consumer | null>;
  list(): Promise<Consumer[]>;
  count(): Promise<number>;
  /** Fails with a {@link DuplicateKeyError} when the hash exists already. */
  addApiKey(key: ApiKeyRecord): Promise<void>;
  /** The key with this hash, revoked or not. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  listApiKeys(consumerId: string): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt; false when the key does not exist for this consumer or was revoked before. */
  revokeApiKey(consumerId: string, keyId: string, at: string): Promise<boolean>;
}
