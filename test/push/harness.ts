import { systemClock, type Clock } from '../../src/clock.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import { type PushFanoutEnqueuer } from '../../src/pipeline/fanout-contract.ts';
import { startPushWorkers } from '../../src/push/start.ts';
import type { Resolver } from '../../src/push/ssrf/resolver.ts';
import type { Running } from '../../src/running.ts';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { S08, seedConsent, seedVehicle, startReceiver, type Receiver } from './helpers.ts';

export interface PushHarness {
  t: TestApp;
  consumer: TestConsumer;
  receiver: Receiver;
  /** The webhook's signing secret as PUT answered it. */
  secret: string;
  consentId: string;
  fanout: PushFanoutEnqueuer;
  /** Starts the delivery workers (tests that need work queued first start them late). */
  startWorkers(resolve?: Resolver): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The whole push path on real parts: the HTTP app (webhook registered through PUT), the
 * SQLite store, the suite's Redis with a private prefix, the fan-out and the BullMQ workers, and
 * a local receiver. S08 is ACTIVATED with an active consent unless told otherwise.
 */
export async function startPushHarness(
  opts: { env?: Record<string, string>; clock?: Clock; statuses?: number[]; seed?: boolean; workers?: boolean; webhook?: Record<string, unknown> } = {},
): Promise<PushHarness> {
  const t = await createTestApp({
    clock: opts.clock ?? systemClock,
    env: { PUSH_ALLOW_PRIVATE_TARGETS: 'true', PUSH_WATCH_CACHE_MS: '0', LOG_LEVEL: 'info', ...opts.env },
  });
  const consumer = await addConsumer(t);
  const receiver = await startReceiver(opts.statuses ?? []);
  const res = await t.app.inject({
    method: 'PUT',
    url: '/push/v1/webhook',
    headers: consumer.headers,
    payload: { url: receiver.url, authorization: 'Bearer consumer-check', ...opts.webhook },
  });
  if (res.statusCode !== 200) throw new Error(`webhook registration failed: ${res.body}`);
  let consentId = '';
  if (opts.seed !== false) {
    await seedVehicle(t.services, consumer.subscriptionId, S08);
    consentId = await seedConsent(t.services, consumer.consumerId, consumer.subscriptionId, S08);
  }
  const fanout = createPushFanoutEnqueuer(t.services);
  const running: Running[] = [];
  const h: PushHarness = {
    t,
    consumer,
    receiver,
    secret: res.json().signingSecret,
    consentId,
    fanout,
    async startWorkers(resolve) {
      running.push(...(await startPushWorkers(t.services, resolve ? { resolve } : {})));
    },
    async stop() {
      for (const r of running.reverse()) await r.close();
      await fanout.close();
      await receiver.close();
      await t.cleanup();
    },
  };
  if (opts.workers !== false) await h.startWorkers();
  return h;
}
