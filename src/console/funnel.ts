import { html } from '../http/pages/html.ts';
import { singleValues } from '../http/single-value.ts';
import type { ConsolePlugin } from './context.ts';
import type { FunnelRow } from '../store/contract.ts';
import { sendPage } from './page.ts';
import type { Clock } from '../clock.ts';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const STEPS = [
  ['started', 'Started'],
  ['approvedAtPortal', 'Approved at the portal'],
  ['approvedAtManufacturer', 'Approved at the manufacturer'],
  ['active', 'Active now'],
  ['revoked', 'Revoked'],
] as const;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The chosen period as whole UTC days, both ends included; the last 7 days by default. */
function period(clock: Clock, q: { since?: string; until?: string }): { since: string; until: string } {
  const today = day(clock.now().getTime());
  const until = q.until && DATE.test(q.until) && !Number.isNaN(Date.parse(q.until)) ? q.until : today;
  const fallback = day(Date.parse(until) - 6 * DAY_MS);
  const since = q.since && DATE.test(q.since) && !Number.isNaN(Date.parse(q.since)) && q.since <= until ? q.since : fallback;
  return { since, until };
}

function total(rows: FunnelRow[]): FunnelRow {
  const t: FunnelRow = { manufacturer: 'all', started: 0, approvedAtPortal: 0, approvedAtManufacturer: 0, active: 0, revoked: 0 };
  for (const r of rows) for (const [k] of STEPS) t[k] += r[k];
  return t;
}

const cell = (r: FunnelRow, k: (typeof STEPS)[number][0]) => html`<td class="num">${r[k]}${k !== 'started' && r.started > 0
  ? html` <span class="muted">${Math.round((100 * r[k]) / r.started)} %</span><br><progress max="${r.started}" value="${r[k]}" aria-hidden="true"></progress>`
  : ''}</td>`;

/**
 * The consent funnel: the processes created in the period, per manufacturer, by how far they
 * got (src/store/contract/reports.ts). One aggregate query in the store, whatever the period.
 */
export const funnelView: ConsolePlugin = async (app, { ctx }) => {
  app.get('/console/funnel', async (request, reply) => {
    const p = period(ctx.clock, singleValues(request.query, ['since', 'until']));
    const rows = await ctx.store.reports.consentFunnel(`${p.since}T00:00:00.000Z`, new Date(Date.parse(p.until) + DAY_MS).toISOString());
    const all = rows.length > 1 ? [...rows, total(rows)] : rows;
    const body = html`<form method="get" action="/console/funnel" class="filters">
<label>From<input type="date" name="since" value="${p.since}"></label><label>To (included)<input type="date" name="until" value="${p.until}"></label><button type="submit">Show</button>
</form>
<p class="muted">Consent processes started from ${p.since} to ${p.until} (UTC), by how far each got. A visit to the portal that ends without a decision stores nothing, so is not counted.</p>
<table id="funnel"><thead><tr><th>Manufacturer</th>${STEPS.map(([, name]) => html`<th class="num">${name}</th>`)}</tr></thead>
<tbody>${all.length ? all.map((r) => html`<tr data-manufacturer="${r.manufacturer ?? 'unknown'}"><th>${r.manufacturer ?? 'unknown (no VIN)'}</th>${STEPS.map(([k]) => cell(r, k))}</tr>`) : html`<tr><td colspan="6">No consent process started in this period.</td></tr>`}</tbody></table>`;
    return sendPage(reply, { view: 'funnel', title: 'Consent funnel', csrf: request.consoleSession!.csrf, body });
  });
};
