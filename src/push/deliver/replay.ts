import { apiErrors } from '../../errors.ts';
import type { PushContext } from '../context.ts';
import type { ReplayDeps } from '../context.ts';
import { DEFAULT_ENDPOINT, type DeliveryRecord, type DeliveryStatus } from '../../store/contract.ts';
import type { PushQueue } from '../queue.ts';

/** Finished deliveries a consumer may have sent again. In-flight ones are already scheduled. */
const REPLAYABLE: readonly DeliveryStatus[] = ['DEAD', 'DELIVERED', 'DROPPED'];

export const MAX_BULK_REPLAY = 1000;

async function requireEnabledWebhook(services: Pick<PushContext, 'store'>, subscriptionId: string, endpointId: string): Promise<void> {
  const webhook = await services.store.webhooks.get(subscriptionId, endpointId);
  if (!webhook) throw apiErrors.conflict(endpointId === DEFAULT_ENDPOINT ? 'No webhook configured for this subscription.' : `No webhook endpoint ${endpointId} in this subscription.`);
  if (webhook.status === 'DISABLED') {
    const again = endpointId === DEFAULT_ENDPOINT ? 'PUT /push/v1/webhook' : `PUT /push/v1/webhooks/${endpointId}`;
    throw apiErrors.conflict(`The webhook is disabled; register it again with ${again} to enable it.`);
  }
}

/**
 * Puts one finished delivery back to PENDING (a conditional write: of two racing replays one
 * wins) and queues a fresh job for it, under its transactionId like every job of it, so that
 * a replay can never start a second retry chain beside a job of the same delivery. The transactionId, and so the `webhook-id`, stays the
 * same, so a consumer that deduplicates on it recognises a delivery it already processed.
 * Consent and activation are checked again when it is sent.
 */
async function requeue(services: ReplayDeps, queue: PushQueue, d: DeliveryRecord): Promise<'queued' | 'scheduled' | 'running'> {
  const at = services.clock.now().toISOString();
  const won = await services.store.deliveries.transition(d.transactionId, REPLAYABLE, 'PENDING', at);
  if (!won) return 'scheduled';
  let queued: boolean;
  try {
    queued = await queue.requeue(d);
  } catch (err) {
    // Without its job the row must not pretend to be scheduled: put it back as it was.
    await services.store.deliveries.transition(d.transactionId, ['PENDING'], d.status, at);
    services.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'push queue unavailable for a replay');
    throw apiErrors.unavailable(5);
  }
  if (!queued) {
    // The job that just finished this delivery is still winding up: nothing was queued.
    await services.store.deliveries.transition(d.transactionId, ['PENDING'], d.status, at);
    return 'running';
  }
  return 'queued';
}

export async function replayOne(services: ReplayDeps, queue: PushQueue, subscriptionId: string, transactionId: string): Promise<DeliveryRecord> {
  const d = await services.store.deliveries.get(transactionId);
  // Another subscription's delivery is answered exactly like one that does not exist.
  if (!d || d.subscriptionId !== subscriptionId) throw apiErrors.notFound('Delivery not found.');
  // Its VIN went with its job (src/push/notices/notice.ts): there is nothing left to send.
  if (d.kind === 'notice') throw apiErrors.conflict('A notice cannot be sent again: its VIN is no longer held.');
  await requireEnabledWebhook(services, subscriptionId, d.endpointId ?? DEFAULT_ENDPOINT);
  const outcome = REPLAYABLE.includes(d.status) ? await requeue(services, queue, d) : 'scheduled';
  if (outcome === 'scheduled') throw apiErrors.conflict('The delivery is already scheduled.');
  if (outcome === 'running') throw apiErrors.conflict('The delivery is being sent right now; try again in a moment.');
  return (await services.store.deliveries.get(transactionId)) ?? d;
}

/**
 * Replays the DEAD deliveries of one webhook endpoint (the default one unless named) created in
 * [since, until), at most {@link MAX_BULK_REPLAY} per call.
 */
export async function replayDead(
  services: ReplayDeps,
  queue: PushQueue,
  subscriptionId: string,
  range: { since: string; until?: string },
  endpointId: string = DEFAULT_ENDPOINT,
): Promise<{ replayed: number; more: boolean }> {
  await requireEnabledWebhook(services, subscriptionId, endpointId);
  // Notices never leave DEAD (they cannot be replayed): left out, so they cannot fill every page.
  const dead = await services.store.deliveries.list({
    subscriptionId,
    endpointId,
    status: 'DEAD',
    kinds: ['event', 'update'],
    since: range.since,
    ...(range.until ? { until: range.until } : {}),
    limit: MAX_BULK_REPLAY,
  });
  let replayed = 0;
  for (const d of dead) if ((await requeue(services, queue, d)) === 'queued') replayed++;
  return { replayed, more: dead.length === MAX_BULK_REPLAY };
}
