/** Thrown by a store engine when a unique index refuses a write. */
export class DuplicateKeyError extends Error {
  constructor(readonly index: string) {
    super(`duplicate key for unique index ${index}`);
    this.name = 'DuplicateKeyError';
  }
}

/** Thrown by a store engine when the database cannot be reached or fails transiently. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}
