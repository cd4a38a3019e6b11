import { html } from '../http/pages/html.ts';
import { ApiError, apiErrors } from '../errors.ts';
import { singleValues } from '../http/single-value.ts';
import { getSubscription } from '../provisioning/index.ts';
import type { PushQueue } from '../push/queue.ts';
import { MAX_BULK_REPLAY, replayDead, replayOne } from '../push/deliver/replay.ts';
import type { DeliveryRecord } from '../store/contract.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../store/contract/deliveries.ts';
import { formOf } from './auth.ts';
import type { ConsolePlugin } from './context.ts';
import { query, sendPage, when } from './page.ts';
import { vinLink } from './vehicle.ts';

const PAGE_SIZE = 50;
const REPLAYABLE = new Set<DeliveryStatus>(['DEAD', 'DELIVERED', 'DROPPED']);
/** "Replay all dead" covers every dead delivery still kept (retention bounds how old). */
const EVER = '1970-01-01T00:00:00.000Z';

const lastAttempt = (d: DeliveryRecord) => d.attempts[d.attempts.length - 1];

/**
 * Per webhook: the delivery log (status, attempts, next try), its dead letters, and replays of
 * one, a selection or all dead ones: src/push/deliver/replay.ts, as the consumer's push API uses it.
 */
export const deliveriesView: ConsolePlugin = async (app, { ctx }) => {
  let queue: PushQueue | undefined;
  app.addHook('onClose', async () => queue?.close());

  app.get<{ Params: { subscriptionId: string } }>(
    '/console/subscriptions/:subscriptionId/deliveries',
    async (request, reply) => {
      const csrf = request.consoleSession!.csrf;
      const sub = await getSubscription(ctx, request.params.subscriptionId.slice(0, 64));
      const q = singleValues(request.query, ['status', 'until']);
      const status = DELIVERY_STATUSES.includes(q.status as DeliveryStatus) ? (q.status as DeliveryStatus) : undefined;
      const until = q.until && !Number.isNaN(Date.parse(q.until)) ? new Date(q.until).toISOString() : undefined;
      const [webhook, rows] = await Promise.all([
        ctx.store.webhooks.get(sub.subscriptionId),
        ctx.store.deliveries.list({ subscriptionId: sub.subscriptionId, limit: PAGE_SIZE, ...(status ? { status } : {}), ...(until ? { until } : {}) }),
      ]);
      const base = `/console/subscriptions/${sub.subscriptionId}/deliveries`;
      // Pages go back in time: the next one ends where this one's oldest row was created.
      const older = rows.length === PAGE_SIZE ? rows[rows.length - 1]!.createdAt : null;
      const body = html`<p><a href="/console/consumers/${sub.consumerId}">← Consumer</a> · subscription <code>${sub.subscriptionId}</code></p>
<div class="card">${webhook
        ? html`<strong>Webhook</strong> ${webhook.url} · <span class="state-${webhook.status}">${webhook.status}</span>${webhook.disabledReason ? html` <span class="error">${webhook.disabledReason}</span>` : ''}${webhook.failingSince ? html` · failing since ${when(webhook.failingSince)}` : ''}`
        : 'No webhook registered for this subscription.'}</div>
<form method="get" action="${base}" class="filters"><label>Status<select name="status"><option value="">all</option>${DELIVERY_STATUSES.map((s) => html`<option${s === status ? html` selected` : ''}>${s}</option>`)}</select></label><button type="submit">Filter</button></form>
<form method="post" action="${base}/replay" class="inline"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="all" value="1"><button type="submit">Replay all dead letters</button></form>
<form method="post" action="${base}/replay">
<input type="hidden" name="csrf" value="${csrf}">
<table><thead><tr><th><span class="muted">Pick</span></th><th>Created</th><th>Item</th><th>VIN</th><th>Status</th><th class="num">Attempts</th><th>Last answer</th><th>Next try</th></tr></thead>
<tbody>${rows.length
        ? rows.map((d) => {
            const a = lastAttempt(d);
            return html`<tr data-transaction="${d.transactionId}"><td>${REPLAYABLE.has(d.status) && d.kind !== 'notice' ? html`<input type="checkbox" name="ids" value="${d.transactionId}" aria-label="Select ${d.transactionId}">` : ''}</td>
<td>${when(d.createdAt)}</td><td>${d.item} <span class="muted">${d.kind}</span></td><td>${vinLink(d.vin || null)}</td><td class="state-${d.status}">${d.status}</td><td class="num">${d.attempts.length}</td>
<td>${a ? `${a.statusCode ?? 'no answer'}${a.error ? ` · ${a.error}` : ''} (${a.durationMs} ms)` : '—'}</td><td>${when(d.nextAttemptAt)}</td></tr>`;
          })
        : html`<tr><td colspan="8">No deliveries${status ? ` with status ${status}` : ''}.</td></tr>`}</tbody></table>
${rows.length ? html`<p><button type="submit" class="primary">Replay the selected</button></p>` : ''}
</form>
<p class="pager">${until ? html`<a href="${base}${query({ status })}">Newest</a>` : ''}${older ? html`<a rel="next" href="${base}${query({ status, until: older })}">Older</a>` : ''}</p>`;
      return sendPage(reply, { view: 'consumers', title: 'Delivery log', csrf, body });
    },
  );

  app.post<{ Params: { subscriptionId: string } }>('/console/subscriptions/:subscriptionId/deliveries/replay', async (request, reply) => {
    const form = formOf(request);
    const sub = await getSubscription(ctx, request.params.subscriptionId.slice(0, 64));
    queue ??= ctx.openPushQueue();
    const results: { id: string; outcome: string }[] = [];
    let summary: string;
    if (form.all === '1') {
      const r = await replayDead(ctx, queue, sub.subscriptionId, { since: EVER });
      summary = `${r.replayed} dead deliveries queued again${r.more ? ` (the first ${MAX_BULK_REPLAY}; replay again for the rest)` : ''}.`;
    } else {
      const ids = (Array.isArray(form.ids) ? form.ids : form.ids === undefined ? [] : [form.ids]).filter((i): i is string => typeof i === 'string').slice(0, MAX_BULK_REPLAY);
      if (ids.length === 0) throw apiErrors.badRequest('Select at least one delivery to replay.');
      for (const id of ids) {
        try {
          const d = await replayOne(ctx, queue, sub.subscriptionId, id.slice(0, 64));
          results.push({ id, outcome: `queued again (${d.status})` });
        } catch (err) {
          // One refused replay (already scheduled, a notice) does not stop the others.
          if (!(err instanceof ApiError) || err.statusCode === 503) throw err;
          results.push({ id, outcome: `refused: ${err.message}` });
        }
      }
      summary = `${results.filter((r) => r.outcome.startsWith('queued')).length} of ${ids.length} queued again.`;
    }
    const body = html`<p role="status" id="replay-summary">${summary}</p>
${results.length ? html`<ul>${results.map((r) => html`<li><code>${r.id}</code>: ${r.outcome}</li>`)}</ul>` : ''}
<p><a href="/console/subscriptions/${sub.subscriptionId}/deliveries">Back to the delivery log</a></p>`;
    return sendPage(reply, { view: 'consumers', title: 'Replay', csrf: request.consoleSession!.csrf, body });
  });
};
