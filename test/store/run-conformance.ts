import type { ConformanceSuite, StoreFactory } from './conformance/types.ts';

/**
 * Every file in ./conformance (except types.ts) is one part of the store contract's
 * conformance suite; each engine's test file runs them all against its engine.
 */
export function runConformance(open: StoreFactory): void {
  const modules = import.meta.glob<{ default: ConformanceSuite }>(['./conformance/*.ts', '!./conformance/types.ts'], { eager: true });
  for (const mod of Object.values(modules)) mod.default(open);
}
