import type { FastifyInstance } from 'fastify';
import { buildServiceApp } from '../../src/main/http-app.ts';
import { newApiKey } from '../../src/auth/api-keys.ts';
import type { Clock } from '../../src/clock.ts';
import type { Paths } from '../../src/paths.ts';
import type { Services } from '../../src/services.ts';
import type { LegalBasis } from '../../src/store/contract.ts';
import { randomUUID } from 'node:crypto';
import { createTestServices, type TestServices } from './services.ts';

export interface TestApp extends TestServices {
  app: FastifyInstance;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  paths?: Paths;
  /** Mounts the wing's sandbox, as an api process with a broker does. */
  sandbox?: boolean;
  /** Registers what the composition root adds to the app, before it is ready. */
  mount?: (app: FastifyInstance, services: Services) => Promise<void>;
}

/** The whole HTTP app on real services; call it with `app.inject()`. */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestServices(opts);
  const app = await buildServiceApp(t.services, { wing: t.wing, ...(opts.sandbox ? { brokerUrl: () => 'mqtt://127.0.0.1:1' } : {}) });
  await opts.mount?.(app, t.services);
  await app.ready();
  return {
    ...t,
    app,
    async cleanup() {
      await app.close();
      await t.cleanup();
    },
  };
}

export interface TestConsumer {
  consumerId: string;
  apiKey: string;
  subscriptionId: string;
  /** Headers that authenticate as this consumer and subscription. */
  headers: Record<string, string>;
}

/** A consumer with an API key and one subscription, written straight to the store. */
export async function addConsumer(
  t: TestServices,
  opts: { dataItems?: string[]; allowedRedirectUrls?: string[]; legalBasis?: LegalBasis; name?: string } = {},
): Promise<TestConsumer> {
  const { store, clock, catalog } = t.services;
  const now = clock.now();
  const consumerId = randomUUID();
  await store.consumers.create({ consumerId, name: opts.name ?? 'Test consumer', createdAt: now.toISOString() });
  const { apiKey, record } = newApiKey(consumerId, now);
  await store.consumers.addApiKey(record);
  const subscriptionId = randomUUID();
  await store.subscriptions.create({
    subscriptionId,
    consumerId,
    dataItems: opts.dataItems ?? catalog.list().map((e) => e.technicalName),
    allowedRedirectUrls: opts.allowedRedirectUrls ?? ['https://app.example.com/cb'],
    legalBasis: opts.legalBasis ?? 'CONSENT',
    createdAt: now.toISOString(),
  });
  return { consumerId, apiKey, subscriptionId, headers: { 'x-api-key': apiKey, 'x-subscription-id': subscriptionId } };
}
