import { randomUUID } from 'node:crypto';
import { apiErrors } from '../../errors.ts';
import { DEFAULT_ENDPOINT } from '../../store/contract.ts';
import { createFixedWindowLimiter } from '../../rate-limit/fixed-window.ts';
import type { PushContext } from '../context.ts';
import { pushHeaders } from '../message/push-headers.ts';
import { postWebhook } from '../deliver/sender.ts';
import { createSigningKeys } from '../signing/signing-keys.ts';
import { createGuardedAgent } from '../ssrf/agent.ts';
import type { Resolver } from '../ssrf/resolver.ts';
import { RATE_LIMIT_WEBHOOK_TEST } from '../../queues/keys.ts';

/** The VIN of every test event: a documented sample, never a vehicle's (no I, O or Q, 17 characters). */
export const TEST_VIN = 'TEST0000000000000';
/** Test events a subscription may send per minute: enough to debug a receiver, too few to flood a URL. */
export const TEST_EVENTS_PER_MINUTE = 5;

/** What POST /push/v1/webhook/test answers: how the receiver answered the one signed POST. */
export interface TestEventResult {
  webhookId: string;
  /** The receiver's HTTP status; null when no answer came (refused, timeout, blocked). */
  status: number | null;
  durationMs: number;
  /** Why it is not a success: null on a 2xx. */
  error: string | null;
  /** The first KB of the receiver's answer, as text (../deliver/answer-excerpt.ts); null when empty or none came. */
  bodyExcerpt: string | null;
}

/**
 * A sample push as the live service's clients read it (the `inVehicleResponse` envelope of
 * src/push/message/envelope.ts: one accidentautomatic event), marked `"test": true` and on TEST_VIN so
 * that a receiver can tell it from a real one.
 */
export function testEnvelopeBody(subscriptionId: string, webhookId: string, now: Date): string {
  const at = now.toISOString();
  return JSON.stringify({
    forwardedAt: at,
    transactionId: webhookId,
    subscriptionId,
    test: true,
    inVehicleResponse: {
      version: '1.0',
      deliveredAt: at,
      inVehicleData: [{ identifier: { type: 'VIN', value: TEST_VIN }, response: { accidentautomatic: { dataPoint: { receivedAt: at, timestamp: at } } } }],
    },
  });
}

/**
 * Test events, so a consumer can check its receiver before real data flows: one signed sample envelope POSTed at once to the subscription's
 * webhook, exactly as a push is sent (same signing keys, Authorization value, SSRF guard at
 * connect time, timeouts, no redirects), and the receiver's answer returned. Nothing is recorded:
 * no delivery row, no retry, and the webhook's status and failure count stay as they are (a
 * disabled webhook can be tested too, before PUT re-enables it). Limited per subscription.
 */
export function createTestEventSender(services: Pick<PushContext, 'clock' | 'config' | 'logger' | 'redis' | 'secrets' | 'store'>, resolve: Resolver) {
  const { store, clock, config, secrets } = services;
  const agent = createGuardedAgent({
    allowPrivate: config.PUSH_ALLOW_PRIVATE_TARGETS,
    resolve,
    connectTimeoutMs: Math.min(config.PUSH_TIMEOUT_MS, 10_000),
    connections: 4,
  });
  const limiter = createFixedWindowLimiter(services.redis, clock, services.logger);
  const keysFor = createSigningKeys(secrets);

  return {
    async send(subscriptionId: string, endpointId: string = DEFAULT_ENDPOINT): Promise<TestEventResult> {
      const webhook = await store.webhooks.get(subscriptionId, endpointId);
      if (!webhook) throw apiErrors.notFound(endpointId === DEFAULT_ENDPOINT ? 'No webhook configured for this subscription.' : `No webhook endpoint ${endpointId} in this subscription.`);
      // Counted only for a webhook that exists; Redis down: not limited (as every limit here).
      const [state] = (await limiter.hit([{ key: RATE_LIMIT_WEBHOOK_TEST.key(config.QUEUE_PREFIX, subscriptionId), limit: TEST_EVENTS_PER_MINUTE, windowS: 60 }])) ?? [];
      if (state && !state.allowed) throw apiErrors.rateLimited(state.resetS);
      const now = clock.now();
      const webhookId = randomUUID();
      const body = testEnvelopeBody(subscriptionId, webhookId, now);
      const authorization = webhook.authorizationSealed ? secrets.decrypt(webhook.authorizationSealed) : null;
      const headers = pushHeaders(keysFor(webhook, now), webhookId, now, body, authorization);
      const r = await postWebhook(agent, webhook.url, headers, body, config.PUSH_TIMEOUT_MS, { excerpt: true });
      return { webhookId, status: r.statusCode, durationMs: r.durationMs, error: r.error, bodyExcerpt: r.bodyExcerpt ?? null };
    },
    close: () => agent.close(),
  };
}
