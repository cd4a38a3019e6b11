import { html } from '../http/pages/html.ts';
import { recentOutcomes, requestReload, type ProcessOutcome } from '../mapping-cases/reload-bus.ts';
import type { ConsolePlugin } from './context.ts';
import { sendPage, when } from './page.ts';

/** How long the reload button waits for every process's outcome (the cases run in each). */
const RELOAD_WAIT_MS = 20_000;
const SHOWN = 20;

const changeText = (o: ProcessOutcome) =>
  o.changes.flatMap((c) => [...c.mappings.map((m) => `${c.manufacturer} ${m.messageType}: ${m.from ?? '—'} → ${m.to ?? '—'}`), ...c.manifest.map((s) => `${c.manufacturer} manifest: ${s}`)]);

/** One process's outcome as a table row: what changed, or why it kept its mappings. */
export const outcomeRow = (o: ProcessOutcome) => html`<tr data-outcome="${o.outcome}">
<td>${when(o.at)}</td><td><code>${o.process}</code><div class="muted">${o.roles.join(', ')}</div></td><td>${o.trigger}</td>
<td class="${o.outcome === 'refused' ? 'error' : o.outcome === 'applied' ? 'ok' : ''}">${o.outcome}${o.cases.ran ? html`<div class="muted">${o.cases.passed} of ${o.cases.ran} cases pass</div>` : ''}</td>
<td>${changeText(o).map((t) => html`<div>${t}</div>`)}${o.problems.length ? html`<pre class="error">${o.problems.join('\n')}</pre>` : ''}</td></tr>`;

const outcomesTable = (rows: ProcessOutcome[], empty: string) => html`<table id="reloads"><thead><tr><th>When</th><th>Process</th><th>Asked by</th><th>Outcome</th><th>Changes, or why not</th></tr></thead>
<tbody>${rows.length ? rows.map(outcomeRow) : html`<tr><td colspan="5">${empty}</td></tr>`}</tbody></table>`;

/**
 * The manufacturers and mappings this process serves, the reload button (every process loads
 * adapters/ and mappings/ from its disk and serves them once the changed manufacturers' cases
 * pass), and the recent reloads of every process with the reason of each refusal.
 */
export const mappingsView: ConsolePlugin = async (app, { ctx }) => {
  app.get('/console/mappings', async (request, reply) => {
    const csrf = request.consoleSession!.csrf;
    const recent = await recentOutcomes(ctx.redis, ctx.config.QUEUE_PREFIX, SHOWN);
    const body = html`<table id="manufacturers"><thead><tr><th>Manufacturer</th><th>Transport</th><th class="num">Items</th><th>Mapping of each message type (served by this process)</th></tr></thead>
<tbody>${ctx.adapters.list().map((a) => html`<tr data-manufacturer="${a.manifest.id}"><td><strong>${a.manifest.id}</strong><div class="muted">${a.manifest.name}</div></td><td>${a.manifest.transport.kind}</td>
<td class="num"><details><summary>${a.manifest.items.length}</summary>${a.manifest.items.join(', ')}</details></td>
<td>${[...a.mappings].sort(([x], [y]) => x.localeCompare(y)).map(([type, m]) => html`<div data-type="${type}">${type}: <code>${m.version}</code> <span class="muted">${m.engine}</span></div>`)}</td></tr>`)}</tbody></table>
<form method="post" action="/console/mappings/reload" class="card">
<input type="hidden" name="csrf" value="${csrf}">
<p>After changing files under <code>adapters/</code> or <code>mappings/</code> on the service's disk, every process loads them and serves them once the changed manufacturers' cases pass; otherwise it keeps what it serves and says why below. (The try-out does this by itself when a file is saved.)</p>
<p><button type="submit" class="primary">Reload every process</button></p>
</form>
<h2>Recent reloads</h2>
${outcomesTable(recent, 'No reload yet.')}`;
    return sendPage(reply, { view: 'mappings', title: 'Manufacturers and mappings', csrf, body });
  });

  app.post('/console/mappings/reload', async (request, reply) => {
    const result = await requestReload(ctx.redis, ctx.config.QUEUE_PREFIX, { waitMs: RELOAD_WAIT_MS });
    const refused = result.outcomes.filter((o) => o.outcome === 'refused').length;
    const missing = result.processes - result.outcomes.length;
    const summary = `${result.outcomes.length - refused} of ${result.processes} processes serve the files on disk${refused ? `; ${refused} refused and keep their mappings` : ''}${missing > 0 ? `; ${missing} did not answer within ${RELOAD_WAIT_MS / 1000} s` : ''}.`;
    const body = html`<p role="status" id="reload-summary" class="${refused || missing ? 'error' : 'ok'}">${summary}</p>
${outcomesTable(result.outcomes, 'No process answered.')}
<p><a href="/console/mappings">← Manufacturers and mappings</a></p>`;
    return sendPage(reply, { view: 'mappings', title: 'Reload', csrf: request.consoleSession!.csrf, body });
  });
};
