import { html } from '../http/pages/html.ts';
import { apiErrors } from '../errors.ts';
import { singleValues } from '../http/single-value.ts';
import type { ConsolePlugin } from './context.ts';
import { ago, query, sendPage, when } from './page.ts';
import { rangePicker } from './range-picker.ts';
import { valueText } from './values.ts';
import { itemHistory, numericValue, rangeOf, vehicleOverview } from './vehicle-data.ts';

const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;
/** The items charted when the operator picked none (those the vehicle has, up to four). */
const PREFERRED = ['mileage', 'vehiclespeed', 'sochighlevel', 'fuellevel', 'batteryvoltage', 'coolanttemperature'];
const MAX_CHARTS = 8;

/** A vehicle's page link, wherever a VIN is shown. */
export const vinLink = (vin: string | null | undefined) => (vin ? html`<a href="/console/vehicles/${vin}"><code>${vin}</code></a>` : '—');

/**
 * One vehicle: its latest values with their age, charts of its numeric items over a chosen
 * range, its events, activations, consent processes, and the quarantined messages with its VIN.
 */
export const vehicleView: ConsolePlugin = async (app, { ctx }) => {
  const vinOf = (raw: string) => {
    const vin = raw.toUpperCase();
    if (!VIN.test(vin)) throw apiErrors.notFound('A VIN has 17 digits and capital letters except I, O and Q.');
    return vin;
  };

  app.get<{ Params: { vin: string } }>('/console/vehicles/:vin', async (request, reply) => {
    const vin = vinOf(request.params.vin);
    const q = singleValues(request.query, ['range', 'items']);
    const range = rangeOf(q.range, '24h');
    const now = ctx.clock.now();
    const v = await vehicleOverview(ctx, vin);
    const numeric = v.latest.filter((p) => numericValue(p.payload) !== null).map((p) => p.item);
    // The charts the operator picked (?items=a,b), else the usual ones the vehicle has.
    const picked = q.items !== undefined ? q.items.split(',').filter((i) => numeric.includes(i)) : null;
    const charted = (picked ?? [...PREFERRED.filter((i) => numeric.includes(i)), ...numeric].filter((i, n, all) => all.indexOf(i) === n).slice(0, 4)).slice(0, MAX_CHARTS);
    // `items=` (empty) is a choice too: no chart.
    const here = (items: string[]) => `/console/vehicles/${vin}${query({ range })}&items=${encodeURIComponent(items.join(','))}`;
    const chartToggle = (item: string) =>
      !numeric.includes(item)
        ? ''
        : charted.includes(item)
          ? html` <a class="chart-toggle" href="${here(charted.filter((i) => i !== item))}" title="Remove its chart">charted ✕</a>`
          : html` <a class="chart-toggle" href="${here([...charted, item])}" title="Chart it">chart</a>`;
    const nothing = !v.latest.length && !v.activations.length && !v.consents.length && !v.quarantine.length;
    const body = html`<p><a href="/console/fleet">← Fleet</a> · <span id="manufacturer">${v.manufacturer ?? 'no manufacturer claims it'}</span> · last data <span id="last-data">${ago(v.lastReceivedAt, now)}</span></p>
${nothing ? html`<p class="muted" role="status">The service knows nothing of this vehicle: no data, activation, consent or quarantined message.</p>` : ''}
<section aria-label="History"><h2>History</h2>
${rangePicker(`/console/vehicles/${vin}`, range, picked ? { items: picked.join(',') } : {})}
${charted.length
  ? html`<div class="grid-charts" id="charts" data-range="${range}">${charted.map((item) => html`<section class="card" data-chart="${item}" data-src="/console/vehicles/${vin}/history.json${query({ item, range })}"><h2>${item}</h2></section>`)}</div>`
  : html`<p class="muted">${numeric.length ? 'No chart picked: choose "chart" beside an item below.' : 'No numeric item to chart.'}</p>`}
</section>
<div class="split wide-first">
<section class="card" aria-label="Latest values"><h2>Latest values</h2>
<table id="latest"><thead><tr><th>Item</th><th>Value</th><th>Age</th><th>At</th></tr></thead>
<tbody>${v.latest.length ? v.latest.map((p) => html`<tr data-item="${p.item}"><td>${p.item}${chartToggle(p.item)}</td><td>${valueText(p.item, p.payload)}</td><td>${ago(new Date(p.timestampMs).toISOString(), now)}</td><td>${when(new Date(p.timestampMs).toISOString())}</td></tr>`) : html`<tr><td colspan="4">No data yet.</td></tr>`}</tbody></table>
</section>
<section class="card" aria-label="Events"><h2>Events</h2>
<table id="events"><thead><tr><th>At</th><th>Event</th><th>Received</th></tr></thead>
<tbody>${v.events.length ? v.events.map((p) => html`<tr data-item="${p.item}"><td>${when(new Date(p.timestampMs).toISOString())}</td><td>${p.item}</td><td>${when(p.receivedAt)}</td></tr>`) : html`<tr><td colspan="3">No event.</td></tr>`}</tbody></table>
</section>
</div>
<div class="split">
<section class="card" aria-label="Activations"><h2>Activations</h2>
<table id="activations"><thead><tr><th>Subscription</th><th>Status</th><th>Since</th></tr></thead>
<tbody>${v.activations.length ? v.activations.map((a) => html`<tr><td><code>${a.subscriptionId}</code></td><td class="state-${a.status}">${a.status}</td><td>${when(a.updatedAt)}</td></tr>`) : html`<tr><td colspan="3">Not activated in any subscription.</td></tr>`}</tbody></table>
</section>
<section class="card" aria-label="Consents"><h2>Consents</h2>
<table id="consents"><thead><tr><th>Subscription</th><th>State</th><th>Started</th><th>Given</th><th>At the manufacturer</th><th>Since</th></tr></thead>
<tbody>${v.consents.length ? v.consents.map((c) => html`<tr><td><code>${c.subscriptionId}</code></td><td class="state-${c.state}">${c.state}</td><td>${when(c.createdAt)}</td><td>${when(c.consentGivenAt)}</td><td>${when(c.activatedAt)}</td><td>${when(c.stateChangedAt)}</td></tr>`) : html`<tr><td colspan="6">No consent process.</td></tr>`}</tbody></table>
</section>
</div>
<section class="card" aria-label="Quarantined messages"><h2>Quarantined messages</h2>
<table id="quarantine"><thead><tr><th>Last failure</th><th>Type</th><th>Reason</th><th class="num">Failures</th></tr></thead>
<tbody>${v.quarantine.length ? v.quarantine.map((e) => html`<tr><td><a href="/console/quarantine/${e.id}">${when(e.lastFailedAt)}</a></td><td>${e.manufacturer} ${e.messageType}</td><td><strong>${e.code}</strong><div class="muted">${e.reason.slice(0, 200)}</div></td><td class="num">${e.failures}</td></tr>`) : html`<tr><td colspan="4">None.</td></tr>`}</tbody></table>
</section>`;
    return sendPage(reply, { view: 'fleet', title: vin, csrf: request.consoleSession!.csrf, body, now, scripts: ['uplot.js', 'charts.js', 'vehicle.js'], styles: ['uplot.css'] });
  });

  app.get<{ Params: { vin: string } }>('/console/vehicles/:vin/history.json', async (request, reply) => {
    const vin = vinOf(request.params.vin);
    const q = singleValues(request.query, ['item', 'range']);
    if (!q.item || !ctx.catalog.get(q.item)) throw apiErrors.notFound('No such catalog item.');
    return reply.header('cache-control', 'no-store').send(await itemHistory(ctx, vin, q.item, rangeOf(q.range, '24h')));
  });
};
