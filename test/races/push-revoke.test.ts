import { Queue } from 'bullmq';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeConsent } from '../../src/consent/consumer-api.ts';
import { createDeliveryProcessor } from '../../src/push/deliver/deliver.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import { type PushFanoutEnqueuer } from '../../src/pipeline/fanout-contract.ts';
import { PUSH_QUEUE, type PushJob } from '../../src/queues/push-job.ts';
import { createGuardedAgent } from '../../src/push/ssrf/agent.ts';
import { systemResolver } from '../../src/push/ssrf/resolver.ts';
import { transactionId } from '../../src/push/message/transaction-id.ts';
import type { Services } from '../../src/services.ts';
import { startPushHarness, type PushHarness } from '../push/harness.ts';
import { crashPoint, revokeConsent as revokeDirectly, S08, seedConsent } from '../push/helpers.ts';
import { createRaceLab } from './race-lab.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { consentContext } from '../../src/main/contexts.ts';

const BASE = Date.parse('2026-03-01T10:00:00.000Z');

/** A consent check that happened (index ≥ 0) and reached the database before the revocation did. */
const within = (checkedAt: number, revokedAt: number) => checkedAt !== -1 && checkedAt < revokedAt;

/**
 * Consent checked at send time, and a withdrawal taking effect at once, under fc.scheduler: an accident event goes from the pipeline's
 * hand-over (fan-out, consent checked at enqueue time; once or twice, as a redelivered batch
 * does) to the push worker's send (consent checked again at send time), while the consumer
 * revokes the consent (the service behind DELETE /consent/v1/consents/:id). Every store call of
 * those paths is a scheduling point on the real SQLite store; the job is the real BullMQ job the
 * fan-out queued in Redis, handed to the worker's processor as BullMQ would (the processor is
 * called directly so its calls belong to this run); the webhook is a real local receiver.
 */
describe('races: a push delivery racing a consent revocation', () => {
  const lab = createRaceLab();
  let h: PushHarness;
  let raced: Services;
  let fanout: PushFanoutEnqueuer;
  let deliver: ReturnType<typeof createDeliveryProcessor>;
  let agent: ReturnType<typeof createGuardedAgent>;
  let jobs: Queue<PushJob>;
  let run = 0;

  beforeAll(async () => {
    h = await startPushHarness({ workers: false });
    // Each run gives (and revokes) its own consent.
    await revokeDirectly(h.t.services, h.consentId);
    const { services } = h.t;
    raced = { ...services, store: lab.wrap(services.store) };
    fanout = createPushFanoutEnqueuer(raced);
    agent = createGuardedAgent({ allowPrivate: true, resolve: systemResolver, connectTimeoutMs: 2_000 });
    deliver = createDeliveryProcessor(raced, agent);
    jobs = openTestQueue<PushJob>({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, PUSH_QUEUE);
  });
  afterAll(async () => {
    await jobs.close();
    await fanout.close();
    await agent.close();
    await h.stop();
  });

  it('work that starts after the revocation lets nothing out; a push goes out only if both consent checks came first', async () => {
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 1, max: 2 }), fc.nat({ max: 20 }), async (s, handovers, startAfter) => {
        const { services } = h.t;
        const { consumerId, subscriptionId } = h.consumer;
        const consentId = await seedConsent(services, consumerId, subscriptionId, S08);
        const point = crashPoint(S08, new Date(BASE + ++run * 1000));
        const tid = transactionId(services.secrets, subscriptionId, S08, point.item, point.timestampMs);

        lab.begin(s);
        try {
          const pipeline = (async () => {
            await Promise.all(Array.from({ length: handovers }, (_, i) => lab.as(`fanout${i}`, () => fanout.enqueue([point]))));
            const job = await jobs.getJob(tid);
            if (job) await lab.as('deliver', () => deliver(job));
          })();
          const revoking = lab.as('revoke', async () => {
            // The consumer's DELETE arrives after `startAfter` store calls of the push path (or after it all).
            await Promise.race([lab.afterCalls(startAfter), pipeline]);
            await revokeConsent(consentContext(raced), subscriptionId, consentId);
          });
          await s.waitFor(Promise.all([pipeline, revoking]));
          await s.waitIdle();
        } finally {
          lab.end();
        }

        const revokedAt = lab.at('revoke', 'consents.transition');
        const fanouts = Array.from({ length: handovers }, (_, i) => `fanout${i}`);
        const sent = h.receiver.requests.filter((r) => r.headers['webhook-id'] === tid);
        const row = await services.store.deliveries.get(tid);
        expect(sent.length).toBeLessThanOrEqual(1);

        // What the consumer may rely on: work that starts after the revocation committed lets nothing out.
        if (fanouts.every((f) => lab.first(f) > revokedAt)) expect(row).toBeNull();
        if (row && lab.first('deliver') > revokedAt) expect(sent).toHaveLength(0);

        // Exactly where the line falls: at the consent checks, at enqueue (fan-out) and again at send.
        const checkedAtEnqueue = fanouts.some((f) => within(lab.at(f, 'consents.activeVins'), revokedAt));
        const checkedAtSend = within(lab.at('deliver', 'consents.activeVins'), revokedAt);
        if (!checkedAtEnqueue) {
          outcomes.add('not queued');
          expect(row).toBeNull();
          expect(sent).toHaveLength(0);
        } else if (!checkedAtSend) {
          outcomes.add('dropped');
          expect(row).toMatchObject({ status: 'DROPPED', lastError: 'no active consent', attempts: [] });
          expect(sent).toHaveLength(0);
        } else {
          outcomes.add('delivered');
          expect(row?.status).toBe('DELIVERED');
          expect(sent).toHaveLength(1);
        }
        await (await jobs.getJob(tid))?.remove();
      }),
      { numRuns: 100 },
    );
    // Every branch was explored, so none of the checks above passed by never running.
    expect(outcomes).toEqual(new Set(['not queued', 'dropped', 'delivered']));
  });
});
