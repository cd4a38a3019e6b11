import type { FastifyReply } from 'fastify';
import { html } from '../http/pages/html.ts';
import { singleValue } from '../http/single-value.ts';
import { addApiKey, createConsumer, createSubscription, getConsumer, listApiKeys, listConsumers, listSubscriptions, revokeApiKey } from '../provisioning/index.ts';
import { LEGAL_BASES, type LegalBasis } from '../store/contract.ts';
import { formOf } from './auth.ts';
import type { ConsolePlugin } from './context.ts';
import { itemsByTopic } from './item-topics.ts';
import { sendPage, when } from './page.ts';

const UUID = /^[0-9a-f-]{36}$/;
/** A textarea's names, split on spaces and commas; a field given twice adds its names. */
const list = (v: unknown) => [v].flat().filter((x): x is string => typeof x === 'string').flatMap((x) => x.split(/[\s,]+/).filter(Boolean));

/** A page that shows a new API key: the only time it is visible (only its SHA-256 is stored). */
function sendIssuedKey(reply: FastifyReply, csrf: string, consumerId: string, name: string, apiKey: string): FastifyReply {
  const body = html`<div class="card"><p role="status">A new API key for <strong>${name}</strong>. Copy it now: it is shown only this once.</p>
<pre id="api-key">${apiKey}</pre><p><a href="/console/consumers/${consumerId}">Continue to ${name}</a></p></div>`;
  return sendPage(reply, { view: 'consumers', title: 'API key issued', csrf, body });
}

/** Consumers, their API keys and subscriptions: the admin API's provisioning functions, as pages. */
export const consumersView: ConsolePlugin = async (app, { ctx }) => {
  app.get('/console/consumers', async (request, reply) => {
    const csrf = request.consoleSession!.csrf;
    const consumers = await listConsumers(ctx);
    const body = html`<form method="post" action="/console/consumers" class="filters card">
<input type="hidden" name="csrf" value="${csrf}">
<label>New consumer<input type="text" name="name" required maxlength="200"></label><button type="submit" class="primary">Create consumer and key</button>
</form>
<table><thead><tr><th>Consumer</th><th>Id</th><th>Created</th></tr></thead>
<tbody>${consumers.map((c) => html`<tr><td><a href="/console/consumers/${c.consumerId}">${c.name}</a></td><td><code>${c.consumerId}</code></td><td>${when(c.createdAt)}</td></tr>`)}</tbody></table>`;
    return sendPage(reply, { view: 'consumers', title: 'Consumers and push', csrf, body });
  });

  app.post('/console/consumers', async (request, reply) => {
    const created = await createConsumer(ctx, formOf(request).name);
    return sendIssuedKey(reply, request.consoleSession!.csrf, created.consumerId, created.name, created.apiKey);
  });

  app.get<{ Params: { consumerId: string } }>('/console/consumers/:consumerId', async (request, reply) => {
    const csrf = request.consoleSession!.csrf;
    const consumer = await getConsumer(ctx, request.params.consumerId.slice(0, 64));
    const [keys, subscriptions] = await Promise.all([listApiKeys(ctx, consumer.consumerId), listSubscriptions(ctx, { consumerId: consumer.consumerId })]);
    const webhooks = await Promise.all(subscriptions.map((s) => ctx.store.webhooks.get(s.subscriptionId)));
    const base = `/console/consumers/${consumer.consumerId}`;
    const body = html`<p><a href="/console/consumers">← Consumers</a> · <code>${consumer.consumerId}</code></p>
<h2>API keys</h2>
<table><thead><tr><th>Key</th><th>Created</th><th>Revoked</th><th></th></tr></thead>
<tbody>${keys.map((k) => html`<tr><td><code>${k.displayPrefix}…</code></td><td>${when(k.createdAt)}</td><td>${when(k.revokedAt)}</td>
<td>${k.revokedAt ? '' : html`<form method="post" action="${base}/keys/${k.keyId}/revoke" class="inline"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Revoke</button></form>`}</td></tr>`)}</tbody></table>
<form method="post" action="${base}/keys"><input type="hidden" name="csrf" value="${csrf}"><p><button type="submit">Create a further key</button></p></form>
<h2>Subscriptions</h2>
<table><thead><tr><th>Subscription</th><th>Legal basis</th><th>Data items</th><th>Webhook</th></tr></thead>
<tbody>${subscriptions.map((s, i) => {
      const w = webhooks[i];
      return html`<tr><td><code>${s.subscriptionId}</code><div class="muted">${when(s.createdAt)}</div></td><td>${s.legalBasis}</td><td>${s.dataItems.join(', ')}</td>
<td>${w ? html`<span class="state-${w.status}">${w.status}</span> ${w.url}${w.disabledReason ? html`<div class="error">${w.disabledReason}</div>` : ''}` : '—'}
<div><a href="/console/subscriptions/${s.subscriptionId}/deliveries">Delivery log</a></div></td></tr>`;
    })}</tbody></table>
<form method="post" action="${base}/subscriptions" class="card">
<input type="hidden" name="csrf" value="${csrf}">
<h2>New subscription</h2>
<p id="items-label"><strong>Data items</strong> <span class="muted">(from the catalog, by topic)</span></p>
<div role="group" aria-labelledby="items-label" id="items">${itemsByTopic(ctx.catalog.list()).map(([topic, items]) => html`<fieldset class="topic" data-topic="${topic}"><legend><label><input type="checkbox" class="topic-all" aria-label="Every item of ${topic}"> ${topic}</label></legend>
${items.map((e) => html`<label title="${e.description}"><input type="checkbox" name="dataItems" value="${e.technicalName}"> ${e.name} <code class="muted">${e.technicalName}</code>${e.deliveryMethod === 'push' ? html` <span class="muted">(push)</span>` : ''}</label>`)}</fieldset>`)}</div>
<p><label for="urls">Allowed redirect URLs (one per line)</label><br><textarea id="urls" name="allowedRedirectUrls" rows="2"></textarea></p>
<p><label for="basis">Legal basis</label> <select id="basis" name="legalBasis">${LEGAL_BASES.map((b) => html`<option>${b}</option>`)}</select></p>
<p><button type="submit" class="primary">Create subscription</button></p>
</form>`;
    return sendPage(reply, { view: 'consumers', title: consumer.name, csrf, body, scripts: ['consumers.js'] });
  });

  app.post<{ Params: { consumerId: string } }>('/console/consumers/:consumerId/keys', async (request, reply) => {
    const consumer = await getConsumer(ctx, request.params.consumerId.slice(0, 64));
    const issued = await addApiKey(ctx, consumer.consumerId);
    return sendIssuedKey(reply, request.consoleSession!.csrf, consumer.consumerId, consumer.name, issued.apiKey);
  });

  app.post<{ Params: { consumerId: string; keyId: string } }>('/console/consumers/:consumerId/keys/:keyId/revoke', async (request, reply) => {
    const { consumerId, keyId } = request.params;
    await revokeApiKey(ctx, consumerId.slice(0, 64), keyId.slice(0, 64));
    return reply.code(303).header('location', `/console/consumers/${UUID.test(consumerId) ? consumerId : ''}`).send();
  });

  app.post<{ Params: { consumerId: string } }>('/console/consumers/:consumerId/subscriptions', async (request, reply) => {
    const form = formOf(request);
    const consumerId = request.params.consumerId.slice(0, 64);
    await createSubscription(ctx, {
      consumerId,
      dataItems: list(form.dataItems),
      allowedRedirectUrls: list(form.allowedRedirectUrls),
      legalBasis: (singleValue(form.legalBasis) ?? 'CONSENT') as LegalBasis,
    });
    return reply.code(303).header('location', `/console/consumers/${UUID.test(consumerId) ? consumerId : ''}`).send();
  });
};
