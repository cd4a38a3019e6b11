import type { Services } from '../services.ts';

/**
 * What a transport (the embedded broker, the external-broker subscriber, HTTP batches) takes
 * from Services (docs/architecture.md: a function takes the members it uses): the adapters that
 * say which manufacturer a message is from, and what accept() needs to queue it (and the
 * shared Redis client, where the subscriber records its share group's members).
 */
export type TransportDeps = Pick<Services, 'adapters' | 'clock' | 'config' | 'logger' | 'readiness' | 'redis' | 'redisUrl' | 'secrets'>;
