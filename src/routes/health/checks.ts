import type { HealthContext } from '../contexts.ts';

/** The dependencies /ready checks, and /metrics reports as cvd_dependency_up: the store, Redis, and what the running roles registered. */
export function readinessChecks(ctx: Pick<HealthContext, 'store' | 'redis' | 'readiness'>): Record<string, () => Promise<void>> {
  return {
    store: () => ctx.store.ping(),
    redis: async () => {
      await ctx.redis.ping();
    },
    ...Object.fromEntries(ctx.readiness),
  };
}
