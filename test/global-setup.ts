import type { TestProject } from 'vitest/node';
import { startPrivateRedis } from '../src/main/private-redis.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/**
 * Real Redis for the whole suite: REDIS_URL when set, else a private redis-server on a free
 * port (never the standard one). Every test isolates itself with its own key prefix.
 */
export default async function setup(project: TestProject) {
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return;
  }
  const redis = await startPrivateRedis();
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.stop();
  };
}
