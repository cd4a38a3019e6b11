import type { Store } from '../../../src/store/contract.ts';

/** A unique index as the engine reports it: its table (collection) and its fields in order. */
export interface UniqueIndex {
  table: string;
  fields: string[];
}

/**
 * Opens a fresh, empty store of one engine. Every conformance file takes one.
 * - `openPeer` opens a second, independent Store on the same database, as a second process
 *   would (its own SQLite connection, its own MongoDB client), for races between processes;
 *   cleanup closes the peers it opened.
 * - `uniqueIndexes` lists the unique indexes the engine really has (SQLite: PRAGMA index_list,
 *   MongoDB: listIndexes), so a test can prove uniqueness is the database's job.
 */
export type StoreFactory = () => Promise<{
  store: Store;
  openPeer(): Promise<Store>;
  uniqueIndexes(): Promise<UniqueIndex[]>;
  cleanup(): Promise<void>;
}>;

/** A conformance file's default export: registers its `describe` blocks for one engine. */
export type ConformanceSuite = (open: StoreFactory) => void;
