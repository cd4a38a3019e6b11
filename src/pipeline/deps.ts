import type { Services } from '../services.ts';

/**
 * What the harmonization workers take from Services (docs/architecture.md: a function takes the
 * members it uses): the queue, the adapters and mappings, the catalog, the store, and the push
 * fan-out they hand harmonized data to.
 */
export type HarmonizeDeps = Pick<Services, 'adapters' | 'catalog' | 'clock' | 'config' | 'logger' | 'redis' | 'redisUrl' | 'secrets' | 'store'>;
