import { apiErrors } from '../../errors.ts';
import type { PushContext } from '../context.ts';
import { DEFAULT_ENDPOINT, type Subscription, type WebhookRecord, type WebhookSecret } from '../../store/contract.ts';
import { IN_FLIGHT_STATUSES } from '../../store/contract/deliveries.ts';
import { headerValueProblem } from '../message/header-value.ts';
import { newSigningSecret } from '../signing/signing.ts';
import type { Resolver } from '../ssrf/resolver.ts';
import { checkWebhookUrl } from '../ssrf/url.ts';

export interface WebhookInput {
  url: string;
  authorization?: string;
  items?: string[];
  minIntervalSeconds?: number;
  /** Notice types to receive besides data pushes (opt-in: a receiver built for data envelopes only is not surprised); none by default. */
  notices?: string[];
  /** The event filter: the push items this endpoint receives; every one of the subscription when absent. */
  events?: string[];
}

export const DEFAULT_MIN_INTERVAL_S = 60;

/** Webhook endpoints a subscription may have, the default one included. */
export const MAX_ENDPOINTS = 10;

/** What PUT answers: the secret, and, when the endpoint was replaced with deliveries still to send, how many. */
export interface PutWebhookAnswer {
  url: string;
  signingSecret: string;
  createdAt: string;
  /** Deliveries of this endpoint still PENDING or RETRYING when it was replaced (at most 1000 counted). */
  pendingDeliveries?: number;
  /** What happens to them, in words. */
  note?: string;
}

/**
 * Registers or replaces one webhook endpoint of the subscription (PUT /push/v1/webhook: the
 * default one; PUT /push/v1/webhooks/{endpointId}). The authorization
 * must be a valid HTTP header value, the URL passes the SSRF check, and listed items must be
 * pull items of the subscription (push items are sent anyway); `notices` opts in to our
 * notices, absent means none. A first registration creates a signing secret; a
 * re-registration keeps the secrets (a consumer moving its endpoint keeps its verifier) and
 * re-enables a disabled webhook, which is how a consumer recovers after fixing its endpoint.
 * Both cases answer with the current secret: PUT is the one place it is shown (GET never
 * shows it).
 */
export async function putWebhook(
  services: Pick<PushContext, 'catalog' | 'clock' | 'config' | 'secrets' | 'store'>,
  subscription: Subscription,
  input: WebhookInput,
  resolve: Resolver,
  endpointId: string = DEFAULT_ENDPOINT,
): Promise<PutWebhookAnswer> {
  const { store, catalog, clock, secrets, config } = services;
  const authProblem = input.authorization === undefined ? null : headerValueProblem(input.authorization);
  if (authProblem) throw apiErrors.badRequest(`authorization is not a valid HTTP header value: it ${authProblem}.`);
  const items = [...new Set(input.items ?? [])];
  const notCovered = items.filter((i) => !subscription.dataItems.includes(i) || catalog.get(i)?.deliveryMethod !== 'pull');
  if (notCovered.length > 0) throw apiErrors.itemsNotCovered(notCovered);
  const events = input.events === undefined ? undefined : [...new Set(input.events)];
  const notEvents = (events ?? []).filter((i) => !subscription.dataItems.includes(i) || catalog.get(i)?.deliveryMethod !== 'push');
  if (notEvents.length > 0) throw apiErrors.itemsNotCovered(notEvents);
  const check = await checkWebhookUrl(input.url, { allowPrivate: config.PUSH_ALLOW_PRIVATE_TARGETS, resolve });
  if (!check.ok) throw apiErrors.badRequest(check.reason);

  const now = clock.now().toISOString();
  const existing = await store.webhooks.get(subscription.subscriptionId, endpointId);
  if (!existing && (await store.webhooks.list(subscription.subscriptionId)).length >= MAX_ENDPOINTS) {
    throw apiErrors.badRequest(`a subscription has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
  }
  let signingSecret: string;
  let keys: WebhookSecret[];
  const current = existing?.secrets[0];
  if (existing && current) {
    signingSecret = secrets.decrypt(current.sealed);
    keys = existing.secrets;
  } else {
    signingSecret = newSigningSecret();
    keys = [{ sealed: secrets.encrypt(signingSecret), createdAt: now, expiresAt: null }];
  }
  const record: WebhookRecord = {
    subscriptionId: subscription.subscriptionId,
    ...(endpointId === DEFAULT_ENDPOINT ? {} : { endpointId }),
    url: check.url.href,
    secrets: keys,
    authorizationSealed: input.authorization ? secrets.encrypt(input.authorization) : null,
    items,
    minIntervalSeconds: input.minIntervalSeconds ?? DEFAULT_MIN_INTERVAL_S,
    notices: [...new Set(input.notices ?? [])],
    ...(events === undefined ? {} : { events }),
    status: 'ENABLED',
    disabledReason: null,
    failingSince: null,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await store.webhooks.put(record);
  const answer: PutWebhookAnswer = { url: record.url, signingSecret, createdAt: record.createdAt };
  // Replacing an endpoint does not drop what is still to be sent to it: say so, and how much.
  const pending = existing ? await inFlight(store, subscription.subscriptionId, endpointId) : 0;
  if (pending > 0) {
    answer.pendingDeliveries = pending;
    answer.note = `${pending === PENDING_COUNT_CAP ? `At least ${pending}` : pending} ${pending === 1 ? 'delivery' : 'deliveries'} of this endpoint still to be sent (PENDING or RETRYING) will go to ${record.url}, signed with the same secret; DELETE the endpoint to drop them instead.`;
  }
  return answer;
}

/** Counted up to this many: the answer says "at least" past it. */
const PENDING_COUNT_CAP = 1000;

async function inFlight(store: PushContext['store'], subscriptionId: string, endpointId: string): Promise<number> {
  let n = 0;
  for (const status of IN_FLIGHT_STATUSES) n += (await store.deliveries.list({ subscriptionId, endpointId, status, limit: PENDING_COUNT_CAP })).length;
  return Math.min(n, PENDING_COUNT_CAP);
}

/**
 * Rotates the signing secret: a new one signs from now on, and the previous one keeps signing
 * for PUSH_SECRET_OVERLAP_S, both signatures sent space-separated, so the consumer can switch
 * its verifier without losing a delivery (Standard Webhooks' rotation).
 */
export async function rotateSecret(
  services: Pick<PushContext, 'clock' | 'config' | 'secrets' | 'store'>,
  subscriptionId: string,
  endpointId: string = DEFAULT_ENDPOINT,
): Promise<{ signingSecret: string; previousSecretExpiresAt: string }> {
  const { store, clock, secrets, config } = services;
  const existing = await store.webhooks.get(subscriptionId, endpointId);
  if (!existing) throw apiErrors.notFound('No webhook configured for this subscription.');
  const now = clock.now();
  const at = now.toISOString();
  const overlapEnds = new Date(now.getTime() + config.PUSH_SECRET_OVERLAP_S * 1000).toISOString();
  const signingSecret = newSigningSecret();
  const previous = existing.secrets
    .filter((s) => s.expiresAt === null || s.expiresAt > at)
    .map((s) => ({ ...s, expiresAt: s.expiresAt === null || s.expiresAt > overlapEnds ? overlapEnds : s.expiresAt }))
    .filter((s) => s.expiresAt > at);
  const next: WebhookSecret[] = [{ sealed: secrets.encrypt(signingSecret), createdAt: at, expiresAt: null }, ...previous];
  if (!(await store.webhooks.setSecrets(subscriptionId, next, at, endpointId))) throw apiErrors.notFound('No webhook configured for this subscription.');
  return { signingSecret, previousSecretExpiresAt: overlapEnds };
}

/** Rows read per store call while dropping a deleted webhook's queue. */
const DROP_PAGE = 1000;

/**
 * DELETE /push/v1/webhook: removes the webhook, and what was still queued or retrying for it is
 * DROPPED at once, so it is neither shown as pending nor sent to a webhook registered later.
 * False when there was none. A send already under way when this runs still completes.
 */
export async function deleteWebhook(services: Pick<PushContext, 'clock' | 'store'>, subscriptionId: string, endpointId: string = DEFAULT_ENDPOINT): Promise<boolean> {
  const { store, clock } = services;
  if (!(await store.webhooks.delete(subscriptionId, endpointId))) return false;
  const at = clock.now().toISOString();
  for (const status of IN_FLIGHT_STATUSES) {
    for (;;) {
      const rows = await store.deliveries.list({ subscriptionId, endpointId, status, limit: DROP_PAGE });
      let moved = 0;
      for (const r of rows) if (await store.deliveries.transition(r.transactionId, IN_FLIGHT_STATUSES, 'DROPPED', at, 'webhook deleted')) moved++;
      // A page that moved nothing lost every row to the push worker: what is left is its business.
      if (rows.length < DROP_PAGE || moved === 0) break;
    }
  }
  return true;
}

/** What GET /push/v1/webhook shows: everything but the secrets and the Authorization value. */
export function webhookView(w: WebhookRecord, now: Date) {
  const at = now.toISOString();
  const rotating = w.secrets.slice(1).filter((s) => s.expiresAt !== null && s.expiresAt > at);
  return {
    url: w.url,
    items: w.items,
    minIntervalSeconds: w.minIntervalSeconds,
    notices: w.notices,
    ...(w.events === undefined ? {} : { events: w.events }),
    authorizationConfigured: w.authorizationSealed !== null,
    status: w.status,
    disabledReason: w.disabledReason,
    failingSince: w.failingSince,
    previousSecretExpiresAt: rotating.length > 0 ? (rotating.map((s) => s.expiresAt as string).sort().at(-1) ?? null) : null,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}
