import type { Job } from 'bullmq';
import type { Dispatcher } from 'undici';
import { metrics } from '../../metrics/metrics.ts';
import type { PushContext } from '../context.ts';
import type { DeliveryAttempt, DeliveryRecord, WebhookRecord } from '../../store/contract.ts';
import { IN_FLIGHT_STATUSES } from '../../store/contract/deliveries.ts';
import { DEFAULT_ENDPOINT } from '../../store/contract.ts';
import { admitsEvent } from '../fanout/event-filter.ts';
import { whyNotAllowed } from './eligibility.ts';
import { envelopeBody } from '../message/envelope.ts';
import { NOTICE_VIN_NOT_HELD, noticeBody as buildNoticeBody, wantsNotice } from '../notices/notice.ts';
import { openNoticeVin, type PushJob } from '../../queues/push-job.ts';
import { RetryLaterError } from './retry-later.ts';
import { nextDelayMs, parseRetryAfter } from './retry-policy.ts';
import { pushHeaders } from '../message/push-headers.ts';
import { postWebhook, type SendResult } from './sender.ts';
import { createSigningKeys, memoUnseal } from '../signing/signing-keys.ts';

/** The endpoint a webhook record is at. */
const endpointOf = (webhook: Pick<WebhookRecord, 'endpointId'>): string => webhook.endpointId ?? DEFAULT_ENDPOINT;

/**
 * The push worker's job: one attempt of one delivery, signed and retried on the schedule. Re-reads
 * everything at send time: the row (erased or finished meanwhile → nothing), the webhook
 * (removed → DROPPED, disabled → DEAD) and the right to send (vehicle ACTIVATED, item in the
 * subscription, consent active, checked at send time; otherwise DROPPED) — except for a notice
 * (src/push/notices/notice.ts), which reports that consent or vehicle is gone and takes its VIN from its job. Then signs the body it
 * serialized once and posts it. A 2xx ends it DELIVERED; 410 disables the webhook; anything
 * else is retried on the schedule until it is dead-lettered, and a webhook that has failed
 * for PUSH_DISABLE_AFTER_S without a success is disabled with a reason the consumer sees.
 */
export function createDeliveryProcessor(services: Pick<PushContext, 'clock' | 'config' | 'logger' | 'secrets' | 'store'>, dispatcher: Dispatcher) {
  const { store, clock, config, logger } = services;
  const keysFor = createSigningKeys(services.secrets);
  const authorizationOf = memoUnseal(services.secrets, (clear) => clear);

  async function finish(d: DeliveryRecord, attempt: DeliveryAttempt, status: DeliveryRecord['status'], lastError: string | null, nextAttemptAt: string | null = null) {
    await store.deliveries.recordAttempt(d.transactionId, attempt, { status, lastError, nextAttemptAt, at: attempt.at });
    metrics.pushOutcomes.inc({ outcome: status.toLowerCase() });
  }

  async function disable(webhook: WebhookRecord, reason: string, at: string) {
    if (await store.webhooks.disable(webhook.subscriptionId, reason, at, endpointOf(webhook))) metrics.pushOutcomes.inc({ outcome: 'disabled' });
  }

  /** Finishes without an attempt (nothing was sent). */
  async function settle(d: DeliveryRecord, status: 'DROPPED' | 'DEAD', at: string, reason: string) {
    if (await store.deliveries.transition(d.transactionId, IN_FLIGHT_STATUSES, status, at, reason)) metrics.pushOutcomes.inc({ outcome: status.toLowerCase() });
  }

  async function onFailure(job: Job<PushJob>, d: DeliveryRecord, webhook: WebhookRecord, attempt: DeliveryAttempt, result: SendResult, now: Date) {
    const error = attempt.error ?? 'failed';
    const endpoint = endpointOf(webhook);
    if (result.statusCode === 410) {
      await disable(webhook, `the endpoint answered 410 Gone at ${attempt.at}`, attempt.at);
      return finish(d, attempt, 'DEAD', error);
    }
    let failingSince = await store.webhooks.recordFailure(webhook.subscriptionId, attempt.at, endpoint);
    if (failingSince && now.getTime() - Date.parse(failingSince) >= config.PUSH_DISABLE_AFTER_S * 1000 && (await succeededSince(webhook, failingSince))) {
      // A success overlapped the failure that started the count (it read the webhook before that
      // failure was recorded, so it did not clear it): the webhook has not been failing that long.
      await store.webhooks.recordSuccess(webhook.subscriptionId, endpoint);
      failingSince = await store.webhooks.recordFailure(webhook.subscriptionId, attempt.at, endpoint);
    }
    if (failingSince && now.getTime() - Date.parse(failingSince) >= config.PUSH_DISABLE_AFTER_S * 1000) {
      await disable(
        webhook,
        `no successful delivery since ${failingSince} (disabled after ${config.PUSH_DISABLE_AFTER_S} s of failures); last error: ${error}`,
        attempt.at,
      );
      return finish(d, attempt, 'DEAD', error);
    }
    const attemptsMade = job.attemptsMade + 1;
    const delay = attemptsMade < (job.opts.attempts ?? 1)
      ? nextDelayMs(config.PUSH_RETRY_SCHEDULE_S, attemptsMade, parseRetryAfter(result.retryAfter, now))
      : null;
    if (delay === null) return finish(d, attempt, 'DEAD', error);
    await finish(d, attempt, 'RETRYING', error, new Date(now.getTime() + delay).toISOString());
    throw new RetryLaterError(delay, error);
  }

  /**
   * Whether one of the subscription's newest deliveries ended in a 2xx after `since`. Only asked
   * before disabling a webhook (rare), so it costs nothing on the way of each success.
   */
  async function succeededSince(webhook: WebhookRecord, since: string): Promise<boolean> {
    const after = Date.parse(since);
    const delivered = await store.deliveries.list({ subscriptionId: webhook.subscriptionId, endpointId: endpointOf(webhook), status: 'DELIVERED', limit: 100 });
    return delivered.some((d) => d.attempts.some((a) => a.error === null && Date.parse(a.at) + a.durationMs > after));
  }

  /**
   * A data push is sent only while the right to send holds at send time, not only at enqueue, and an update only
   * while the consumer still asks for updates of its item: one queued or retrying when the item
   * was taken off the webhook is not what the consumer wants any more.
   */
  async function dataBody(d: DeliveryRecord, webhook: WebhookRecord, now: Date): Promise<string | { dropped: string }> {
    if (d.kind === 'update' && !webhook.items.includes(d.item)) return { dropped: "item no longer in the webhook's update items" };
    if (d.kind === 'event' && !admitsEvent(webhook, d.item)) return { dropped: "event no longer in the webhook's event filter" };
    const notAllowed = await whyNotAllowed(store, d.subscriptionId, d.vin, d.item);
    return notAllowed ? { dropped: notAllowed } : envelopeBody(d, now);
  }

  /**
   * A notice is sent although consent or vehicle is gone (that is its news); its VIN comes from
   * its job. Only while the webhook still asks for its type: one queued or retrying when the
   * consumer opted out is not what it wants any more.
   */
  function noticeBody(data: PushJob, d: DeliveryRecord, webhook: WebhookRecord, now: Date): string | { dropped: string } {
    if (!wantsNotice(webhook, d.item)) return { dropped: "notice type no longer in the webhook's notices" };
    const vin = openNoticeVin(services.secrets, data);
    if (vin === null) return { dropped: NOTICE_VIN_NOT_HELD };
    return buildNoticeBody(d, vin, now) ?? { dropped: `unknown notice type ${d.item}` };
  }

  return async function deliver(job: Job<PushJob>): Promise<string> {
    const d = await store.deliveries.get(job.data.transactionId);
    if (!d || !(IN_FLIGHT_STATUSES as readonly string[]).includes(d.status)) return 'nothing to do';
    const now = clock.now();
    const at = now.toISOString();
    const webhook = await store.webhooks.get(d.subscriptionId, d.endpointId ?? DEFAULT_ENDPOINT);
    if (!webhook) {
      await settle(d, 'DROPPED', at, 'no webhook configured');
      return 'dropped';
    }
    if (webhook.status === 'DISABLED') {
      await settle(d, 'DEAD', at, `webhook disabled: ${webhook.disabledReason ?? ''}`);
      return 'dead';
    }
    const body = d.kind === 'notice' ? noticeBody(job.data, d, webhook, now) : await dataBody(d, webhook, now);
    if (typeof body !== 'string') {
      await settle(d, 'DROPPED', at, body.dropped);
      return 'dropped';
    }
    const authorization = webhook.authorizationSealed ? authorizationOf(webhook.authorizationSealed) : null;
    const headers = pushHeaders(keysFor(webhook, now), d.transactionId, now, body, authorization);

    const result = await postWebhook(dispatcher, webhook.url, headers, body, config.PUSH_TIMEOUT_MS);
    const attempt: DeliveryAttempt = { at, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs };
    const statusClass = result.statusCode === null ? 'error' : `${Math.floor(result.statusCode / 100)}xx`;
    metrics.webhookLatency.observe({ status_class: statusClass }, result.durationMs / 1000);
    logger.debug({ transactionId: d.transactionId, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs }, 'webhook attempt');
    if (result.error === null) {
      await finish(d, attempt, 'DELIVERED', d.lastError);
      if (webhook.failingSince !== null) await store.webhooks.recordSuccess(webhook.subscriptionId, endpointOf(webhook));
      return 'delivered';
    }
    await onFailure(job, d, webhook, attempt, result, now);
    return 'dead';
  };
}
