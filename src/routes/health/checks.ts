import type { Services } from '../../services.ts';

/** The dependencies /ready checks, and /metrics reports as cvd_dependency_up: the store, Redis, and what the running roles registered. */
export function readinessChecks(services: Pick<Services, 'store' | 'redis' | 'readiness'>): Record<string, () => Promise<void>> {
  return {
    store: () => services.store.ping(),
    redis: async () => {
      await services.redis.ping();
    },
    ...Object.fromEntries(services.readiness),
  };
}
