import { join, resolve } from 'node:path';

/** Project folders, resolved from the repository root (overridable in tests). */
export interface Paths {
  root: string;
  catalog: string;
  adapters: string;
  mappings: string;
  scenarios: string;
}

export function defaultPaths(root = resolve(import.meta.dirname, '..')): Paths {
  return {
    root,
    catalog: join(root, 'catalog'),
    adapters: join(root, 'adapters'),
    mappings: join(root, 'mappings'),
    scenarios: join(root, 'simulator', 'scenarios'),
  };
}
