import { DuplicateKeyError } from '../contract/errors.ts';

/** SQLite's extended result codes for a refused unique index or primary key. */
const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** True when better-sqlite3 refused a write because of a unique index or primary key. */
export function isUniqueViolation(err: unknown): err is Error {
  return err instanceof Error && UNIQUE_CODES.has(String((err as Error & { code?: unknown }).code));
}

/**
 * Runs a write and turns a unique-index refusal into the contract's {@link DuplicateKeyError}.
 * `names` maps SQLite's column list (as in "UNIQUE constraint failed: api_keys.key_hash") to the
 * logical index name that both engines report, e.g. `{ 'api_keys.key_hash': 'api_keys.keyHash' }`.
 */
export function withDuplicateKey<T>(names: Record<string, string>, write: () => T): T {
  try {
    return write();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const columns = err.message.replace(/^UNIQUE constraint failed:\s*/, '');
    throw new DuplicateKeyError(names[columns] ?? columns);
  }
}
