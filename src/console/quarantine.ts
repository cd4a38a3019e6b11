import { html } from '../http/pages/html.ts';
import { randomToken } from '../crypto.ts';
import { apiErrors } from '../errors.ts';
import { singleValue, singleValues } from '../http/single-value.ts';
import type { Ingest } from '../pipeline/ingest.ts';
import { MAX_REPROCESS, reprocessQuarantined } from '../pipeline/reprocess.ts';
import { CONSOLE_REPROCESS_RUN } from '../queues/keys.ts';
import { QUARANTINE_CODES, type QuarantineCode, type QuarantinedMessage, type QuarantineFilter } from '../store/contract/quarantine.ts';
import type { Store } from '../store/contract.ts';
import { formOf } from './auth.ts';
import type { ConsoleContext, ConsolePlugin } from './context.ts';
import { query, sendPage, when } from './page.ts';
import { vinLink } from './vehicle.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';

const PAGE_SIZE = 50;
/** A reprocess run is remembered this long, for its outcome page. */
const RUN_TTL_S = 3600;
/** The outcome page lists this many messages of a run (its counts cover all). */
const OUTCOME_ROWS = 200;

const LIST_PARAMS = ['manufacturer', 'code', 'cursor'] as const;

/** The list's filter, from the query or the "reprocess all" form (a field given twice counts once, as everywhere in the console). */
function toFilter(adapters: AdapterRegistry, q: { manufacturer?: unknown; code?: unknown }): QuarantineFilter {
  const [m, c] = [singleValue(q.manufacturer), singleValue(q.code)];
  const manufacturer = m && adapters.get(m) ? m : undefined;
  const code = QUARANTINE_CODES.includes(c as QuarantineCode) ? (c as QuarantineCode) : undefined;
  return { ...(manufacturer ? { manufacturer } : {}), ...(code ? { code } : {}) };
}

const runKey = (queuePrefix: string, token: string) => CONSOLE_REPROCESS_RUN.key(queuePrefix, token);

/** Every id matching the filter, newest failure first, up to MAX_REPROCESS (the admin API's bound). */
async function idsOf(ctx: Pick<ConsoleContext, 'store' | 'config'>, filter: QuarantineFilter): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.store.quarantine.list(filter, 1000, cursor, { maxBytes: ctx.config.QUARANTINE_PAGE_MAX_BYTES });
    ids.push(...page.items.map((e) => e.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor && ids.length < MAX_REPROCESS);
  return ids.slice(0, MAX_REPROCESS);
}

type Outcome = 'stored' | 'failed again' | 'waiting';
/** Reprocessed at `at`: gone from quarantine means stored; a failure at or after `at` means it failed again. */
const outcomeOf = (entry: QuarantinedMessage | undefined, at: string): Outcome => (!entry ? 'stored' : entry.lastFailedAt >= at ? 'failed again' : 'waiting');

const reprocessForm = (csrf: string, content: ReturnType<typeof html>, label: string) => html`<form method="post" action="/console/quarantine/reprocess">
<input type="hidden" name="csrf" value="${csrf}">${content}<button type="submit" class="primary">${label}</button></form>`;

/** The quarantine: list by reason and manufacturer, one message beside its error, reprocessing with its outcome. */
export const quarantineView: ConsolePlugin = async (app, { ctx }) => {
  let ingest: Ingest | undefined;
  app.addHook('onClose', async () => ingest?.close());

  app.get('/console/quarantine', async (request, reply) => {
    const params = singleValues(request.query, LIST_PARAMS);
    const filter = toFilter(ctx.adapters, params);
    const csrf = request.consoleSession!.csrf;
    let page;
    try {
      page = await ctx.store.quarantine.list(filter, PAGE_SIZE, params.cursor || undefined, { maxBytes: ctx.config.QUARANTINE_PAGE_MAX_BYTES });
    } catch (err) {
      if (err instanceof RangeError) throw apiErrors.badRequest('invalid cursor.');
      throw err;
    }
    const body = html`<form method="get" action="/console/quarantine" class="filters">
<label>Reason<select name="code"><option value="">all</option>${QUARANTINE_CODES.map((c) => html`<option${c === filter.code ? html` selected` : ''}>${c}</option>`)}</select></label>
<label>Manufacturer<select name="manufacturer"><option value="">all</option>${ctx.adapters.list().map((a) => a.manifest.id).map((id) => html`<option${id === filter.manufacturer ? html` selected` : ''}>${id}</option>`)}</select></label>
<button type="submit">Filter</button>
</form>
${filter.code
  ? reprocessForm(csrf, html`<input type="hidden" name="all" value="1"><input type="hidden" name="code" value="${filter.code}">${filter.manufacturer ? html`<input type="hidden" name="manufacturer" value="${filter.manufacturer}">` : ''}`, `Reprocess all ${filter.code}${filter.manufacturer ? ` of ${filter.manufacturer}` : ''}`)
  : html`<p class="muted">Choose a reason to reprocess all of its messages at once.</p>`}
<form method="post" action="/console/quarantine/reprocess" id="selection">
<input type="hidden" name="csrf" value="${csrf}">
<table>
<thead><tr><th><span class="muted">Pick</span></th><th>Last failure</th><th>Manufacturer</th><th>Type</th><th>Reason</th><th>VIN</th><th class="num">Failures</th></tr></thead>
<tbody>${page.items.length
  ? page.items.map((e) => html`<tr>
<td><input type="checkbox" name="ids" value="${e.id}" aria-label="Select ${e.id}"></td>
<td><a href="/console/quarantine/${e.id}">${when(e.lastFailedAt)}</a></td><td>${e.manufacturer}</td><td>${e.messageType}</td>
<td><strong>${e.code}</strong><div class="muted">${e.reason.slice(0, 200)}</div></td><td>${vinLink(e.vin)}</td><td class="num">${e.failures}</td></tr>`)
  : html`<tr><td colspan="7">Nothing in quarantine${filter.code || filter.manufacturer ? ' with these filters' : ''}.</td></tr>`}</tbody>
</table>
${page.items.length ? html`<p><button type="submit">Reprocess the selected</button></p>` : ''}
</form>
<p class="pager">${params.cursor ? html`<a href="/console/quarantine${query({ ...filter })}">First page</a>` : ''}${page.nextCursor ? html`<a rel="next" href="/console/quarantine${query({ ...filter, cursor: page.nextCursor })}">Next page</a>` : ''}</p>`;
    return sendPage(reply, { view: 'quarantine', title: 'Quarantine', csrf, body });
  });

  app.get<{ Params: { id: string } }>('/console/quarantine/:id', async (request, reply) => {
    const [e] = await ctx.store.quarantine.get([request.params.id.slice(0, 100)]);
    if (!e) throw apiErrors.notFound('No such message in quarantine (reprocessed and stored, or removed by retention).');
    const csrf = request.consoleSession!.csrf;
    const raw = e.rawEncoding === 'utf8' ? prettyJson(e.raw) : e.raw;
    const body = html`<p><a href="/console/quarantine">← Quarantine</a></p>
<div class="split">
<section class="card" aria-label="Raw message"><h2>Raw message${e.rawEncoding === 'base64' ? ' (base64: not UTF-8)' : ''}</h2>${e.rawTruncated ? html`<p class="muted" id="cut">Only its first bytes are kept (QUARANTINE_MAX_RAW_BYTES): it cannot be reprocessed.</p>` : ''}<pre id="raw">${raw}</pre></section>
<section class="card" aria-label="Error"><h2>Error</h2>
<p><strong id="code">${e.code}</strong></p><pre id="reason">${e.reason}</pre>
<dl><dt>Manufacturer, type</dt><dd>${e.manufacturer}, ${e.messageType}</dd><dt>VIN</dt><dd>${vinLink(e.vin)}</dd><dt>Topic</dt><dd>${e.topic ?? '—'}</dd>
<dt>Mapping version</dt><dd>${e.mappingVersion ?? '—'}</dd><dt>Received</dt><dd>${when(e.receivedAt)}</dd><dt>Failures</dt><dd>${e.failures}, last ${when(e.lastFailedAt)}</dd></dl>
${reprocessForm(csrf, html`<input type="hidden" name="ids" value="${e.id}">`, 'Reprocess this message')}
<p><a href="/console/playground${query({ manufacturer: e.manufacturer, messageType: e.messageType, quarantineId: e.id })}">Open in the mapping playground</a></p>
</section></div>`;
    return sendPage(reply, { view: 'quarantine', title: `Quarantined ${e.messageType} message`, csrf, body });
  });

  app.post('/console/quarantine/reprocess', async (request, reply) => {
    const form = formOf(request);
    const picked = (Array.isArray(form.ids) ? form.ids : form.ids === undefined ? [] : [form.ids]).filter((i): i is string => typeof i === 'string').slice(0, MAX_REPROCESS);
    const filter = toFilter(ctx.adapters, form);
    if (form.all !== '1' && picked.length === 0) throw apiErrors.badRequest('Select at least one message to reprocess.');
    if (form.all === '1' && !filter.code) throw apiErrors.badRequest('Reprocessing all needs a reason.');
    const ids = form.all === '1' ? await idsOf(ctx, filter) : picked;
    const at = ctx.clock.now().toISOString();
    let queued: number;
    try {
      queued = await reprocessQuarantined(ctx, (ingest ??= ctx.openIngest()), { ids });
    } catch (err) {
      if ((err as Error).name === 'StoreUnavailableError') throw err;
      request.log.warn({ err: (err as Error).message }, 'queue refused reprocessing');
      throw apiErrors.unavailable(5);
    }
    const token = randomToken(12);
    await ctx.redis.set(runKey(ctx.config.QUEUE_PREFIX, token), JSON.stringify({ at, ids, queued }), 'EX', RUN_TTL_S);
    return reply.code(303).header('location', `/console/quarantine/outcome/${token}`).send();
  });

  app.get<{ Params: { token: string } }>('/console/quarantine/outcome/:token', async (request, reply) => {
    const saved = /^[A-Za-z0-9_-]{16}$/.test(request.params.token) ? await ctx.redis.get(runKey(ctx.config.QUEUE_PREFIX, request.params.token)) : null;
    if (!saved) throw apiErrors.notFound('This reprocess run is no longer remembered (kept one hour).');
    const run = JSON.parse(saved) as { at: string; ids: string[]; queued: number };
    const entries = new Map((await getAll(ctx.store, run.ids)).map((e) => [e.id, e]));
    const outcomes = run.ids.map((id) => ({ id, outcome: outcomeOf(entries.get(id), run.at), entry: entries.get(id) }));
    const count = (o: Outcome) => outcomes.filter((x) => x.outcome === o).length;
    const waiting = count('waiting');
    const body = html`<p role="status" id="summary" data-waiting="${waiting}">${run.queued} queued at ${when(run.at)}:
<strong class="ok">${count('stored')} stored</strong>, <strong class="error">${count('failed again')} failed again</strong>, ${waiting} waiting${waiting ? ' (this page refreshes)' : ''}.</p>
<table><thead><tr><th>Message</th><th>Outcome</th><th>Reason now</th></tr></thead>
<tbody>${outcomes.slice(0, OUTCOME_ROWS).map((o) => html`<tr><td><code>${o.id}</code></td><td class="${o.outcome === 'stored' ? 'ok' : o.outcome === 'failed again' ? 'error' : ''}">${o.outcome}</td>
<td>${o.entry && o.outcome === 'failed again' ? html`<a href="/console/quarantine/${o.id}">${o.entry.code}</a> ${o.entry.reason.slice(0, 200)}` : '—'}</td></tr>`)}</tbody></table>
<p><a href="/console/quarantine">← Quarantine</a></p>`;
    return sendPage(reply, { view: 'quarantine', title: 'Reprocess outcome', csrf: request.consoleSession!.csrf, body, scripts: ['quarantine.js'] });
  });
};

async function getAll(store: Store, ids: string[]): Promise<QuarantinedMessage[]> {
  const out: QuarantinedMessage[] = [];
  for (let i = 0; i < ids.length; i += 1000) out.push(...(await store.quarantine.get(ids.slice(i, i + 1000))));
  return out;
}

function prettyJson(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}
