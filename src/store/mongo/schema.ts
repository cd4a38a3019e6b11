import type { Db } from 'mongodb';
import { META_COLLECTION, SCHEMA_VERSION } from './layout.ts';

/** The command that migrates a store and builds its indexes, as an operator types it. */
export const MIGRATE_COMMAND = 'npm run cli -- store migrate';

/** The schema document: `{ _id: 'schema', version, migratedAt }`. */
export interface SchemaDoc {
  _id: 'schema';
  version: number;
  migratedAt: string;
}

/** A store this release must not use as it is: not migrated yet, or written by a newer release. Not transient. */
export class StoreNotMigratedError extends Error {
  override readonly name = 'StoreNotMigratedError';
}

/**
 * Why a process must not start on a store whose schema version is `found` (null: no version,
 * a new database or one written before versions), or null when it may. The message names the
 * command that fixes it; a process never builds indexes or moves data itself, because on a
 * large collection that takes hours and every process would start it at once.
 */
export function schemaRefusal(found: number | null, dbName: string, expected = SCHEMA_VERSION): string | null {
  if (found === expected) return null;
  if (found !== null && found > expected) {
    return `MongoDB database "${dbName}" is at schema version ${found}, written by a newer release; this release reads version ${expected}. Run the newer release (or restore the backup taken before its migration).`;
  }
  const what = found === null ? 'has no schema version (a new database, or one written before schema versions)' : `is at schema version ${found}`;
  return `MongoDB database "${dbName}" ${what}; this release needs version ${expected}. Stop the service's processes, run \`${MIGRATE_COMMAND}\` once with this MONGO_URL and MONGO_DB (in a container: \`node dist/src/cli/main.js store migrate\`), then start them again. No process builds indexes or moves data at start.`;
}

/** The schema version the database holds (null when it has none). */
export async function readSchemaVersion(db: Db): Promise<number | null> {
  const doc = await db.collection<SchemaDoc>(META_COLLECTION).findOne({ _id: 'schema' });
  return typeof doc?.version === 'number' ? doc.version : null;
}

/** Throws StoreNotMigratedError unless the database is at this release's schema version. */
export async function checkSchema(db: Db, dbName: string): Promise<void> {
  const refusal = schemaRefusal(await readSchemaVersion(db), dbName);
  if (refusal !== null) throw new StoreNotMigratedError(refusal);
}
