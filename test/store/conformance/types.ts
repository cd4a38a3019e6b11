import type { Store } from '../../../src/store/contract.ts';

/** Opens a fresh, empty store of one engine. Every conformance file takes one. */
export type StoreFactory = () => Promise<{ store: Store; cleanup(): Promise<void> }>;

/** A conformance file's default export: registers its `describe` blocks for one engine. */
export type ConformanceSuite = (open: StoreFactory) => void;
