import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Project folders, resolved from the repository root (overridable in tests). */
export interface Paths {
  root: string;
  catalog: string;
  adapters: string;
  mappings: string;
  scenarios: string;
}

/**
 * The repository root: the nearest folder above `from` that holds package.json. The data the
 * service reads at start (catalog/, adapters/, mappings/, simulator/scenarios/) lies there,
 * whether the code runs from src/ through tsx or compiled from dist/src/ by plain node.
 */
export function projectRoot(from: string = import.meta.dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}: cannot find the project's catalog, adapters and mappings`);
  }
}

export function defaultPaths(root = projectRoot()): Paths {
  return {
    root,
    catalog: join(root, 'catalog'),
    adapters: join(root, 'adapters'),
    mappings: join(root, 'mappings'),
    scenarios: join(root, 'simulator', 'scenarios'),
  };
}
