import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { html } from '../http/pages/html.ts';
import type { Adapter } from '../adapters/manifest.ts';
import { apiErrors } from '../errors.ts';
import { CASE_NAME } from '../mapping-cases/case-file.ts';
import { recentOutcomes } from '../mapping-cases/reload-bus.ts';
import { singleValues } from '../http/single-value.ts';
import { formOf } from './auth.ts';
import type { ConsolePlugin } from './context.ts';
import { sendPage, when } from './page.ts';
import { editedMapping, playgroundCase, playgroundCases, playgroundDryRun } from './playground-run.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';

const PICK_PARAMS = ['manufacturer', 'messageType', 'fixture', 'quarantineId'] as const;

const FIXTURE_NAME = /^[A-Za-z0-9._-]+\.json$/;

/** The adapter's example messages (adapters/<id>/fixtures/), by name. */
const fixturesOf = async (adapter: Adapter) => (await readdir(join(adapter.dir, 'fixtures')).catch(() => [] as string[])).filter((f) => FIXTURE_NAME.test(f)).sort();
/** The fixture a message type opens with: the first named for it. */
const fixtureFor = (fixtures: string[], messageType: string) => fixtures.find((f) => f.includes(`.${messageType}.`)) ?? '';

/** The edited mapping and where it applies, from a script's JSON call; 400/404 for anything else. */
function editedFrom(adapters: AdapterRegistry, body: Record<string, unknown>) {
  const { manufacturer, messageType, mapping } = body;
  if (typeof manufacturer !== 'string' || typeof messageType !== 'string' || typeof mapping !== 'string') {
    throw apiErrors.badRequest('give "manufacturer", "messageType" and "mapping" as strings.');
  }
  const edited = editedMapping(adapters, manufacturer, messageType, mapping);
  if (!edited) throw apiErrors.notFound(`No mapping for ${manufacturer} ${messageType}.`);
  return edited;
}

/**
 * The mapping playground: pick a manufacturer, a message type and a fixture (or a quarantined
 * message, or paste one), edit the mapping and see the dry run at each pause in typing; run the
 * manufacturer's cases. Nothing is saved on the server: the page offers the mapping to copy or
 * download, to be committed and deployed like any mapping change.
 */
export const playgroundView: ConsolePlugin = async (app, { ctx: services }) => {
  // Its thread starts at the first run, not with the process: most processes never serve one.
  const { sandbox, release } = services.acquireMappingSandbox();
  app.addHook('onClose', () => release());
  app.get('/console/playground', async (request, reply) => {
    const pick = singleValues(request.query, PICK_PARAMS);
    const adapters = services.adapters.list();
    const adapter = services.adapters.get(pick.manufacturer ?? '') ?? adapters[0];
    if (!adapter) throw apiErrors.notFound('No manufacturer is configured.');
    const id = adapter.manifest.id;
    const types = [...adapter.mappings.keys()].sort();
    const messageType = types.includes(pick.messageType ?? '') ? pick.messageType! : types[0]!;
    const mapping = adapter.mappings.get(messageType)!;
    const fixtures = await fixturesOf(adapter);
    const fixture = fixtures.includes(pick.fixture ?? '') ? pick.fixture! : fixtureFor(fixtures, messageType);
    let raw = fixture ? await readFile(join(adapter.dir, 'fixtures', fixture), 'utf8') : '';
    let source = 'fixture';
    if (pick.quarantineId) {
      const [q] = await services.store.quarantine.get([pick.quarantineId.slice(0, 100)]);
      if (q && q.rawEncoding === 'utf8') ({ raw, source } = { raw: q.raw, source: `quarantined message ${q.id}` });
    }
    const csrf = request.consoleSession!.csrf;
    // A reload that kept the old mappings: what the pipeline runs is not what is on disk.
    const [lastReload] = await recentOutcomes(services.redis, services.config.QUEUE_PREFIX, 1).catch(() => []);
    const refusal = lastReload?.outcome === 'refused' ? lastReload : undefined;
    const body = html`${refusal ? html`<div class="card error" role="alert" id="reload-refused">The last mapping reload (${when(refusal.at)}, ${refusal.trigger}) was refused, so the pipeline still runs the mappings it ran before: ${refusal.problems.slice(0, 3).join('; ')}${refusal.problems.length > 3 ? ' …' : ''} <a href="/console/mappings">Mappings</a></div>` : ''}
<form method="get" action="/console/playground" class="filters" id="pick">
<label>Manufacturer<select name="manufacturer">${adapters.map((a) => html`<option${a.manifest.id === id ? html` selected` : ''}>${a.manifest.id}</option>`)}</select></label>
<label>Message type<select name="messageType">${types.map((t) => html`<option${t === messageType ? html` selected` : ''}>${t}</option>`)}</select></label>
<label>Fixture<select name="fixture"><option value="">(none)</option>${fixtures.map((f) => html`<option${f === fixture ? html` selected` : ''}>${f}</option>`)}</select></label>
<button type="submit">Load</button>
</form>
<div class="playground" id="playground" data-manufacturer="${id}" data-message-type="${messageType}" data-file="${basename(mapping.file)}">
<section>
<label for="raw">Raw message <span class="muted">(${source})</span></label>
<textarea id="raw" rows="12" spellcheck="false">${raw}</textarea>
<label for="mapping">Mapping <span class="muted">mappings/${id}/${basename(mapping.file)}</span></label>
<textarea id="mapping" rows="22" spellcheck="false">${await readFile(mapping.file, 'utf8')}</textarea>
<p><button type="button" id="copy">Copy the mapping</button> <button type="button" id="download">Download ${basename(mapping.file)}</button>
<button type="button" id="run-cases" class="primary">Run ${id}'s cases</button></p>
<p class="muted">Nothing is saved on the server from here: put the downloaded file in mappings/${id}/ on the service's disk. The try-out serves it within seconds, a deployment after <code>npm run cli -- mappings reload</code> or <a href="/console/mappings">Reload</a>, in both cases only once ${id}'s cases pass with it.</p>
<p class="filters"><label>Case name<input type="text" id="case-name" value="${messageType}-new" pattern="[a-z0-9][a-z0-9\-]{0,79}" maxlength="80" spellcheck="false"></label>
<button type="button" id="save-case">Save the output as a case</button></p>
<p class="muted">Downloads <code>&lt;name&gt;.json</code> for mappings/${id}/cases/: this raw message and what the edited mapping makes of it (or its failure). The CLI does the same: <code>npm run cli -- mappings case &lt;file&gt; --manufacturer ${id} --type ${messageType} --name &lt;name&gt;</code>.</p>
</section>
<section>
<h2>Harmonized output</h2>
<p id="status" role="status" aria-live="polite">…</p>
<div id="output"></div>
<h2>Cases</h2>
<div id="cases" aria-live="polite"><p class="muted">Not run yet.</p></div>
</section>
</div>`;
    return sendPage(reply, { view: 'playground', title: 'Mapping playground', csrf, body, scripts: ['console.js', 'playground.js'] });
  });

  app.post('/console/playground/run.json', async (request) => {
    const form = formOf(request);
    const edited = editedFrom(services.adapters, form);
    if (typeof form.raw !== 'string') throw apiErrors.badRequest('give the raw message as "raw" (text).');
    return playgroundDryRun(services.clock, sandbox, edited, form.raw);
  });

  // The lists of the pick form for another manufacturer: its message types and fixtures.
  app.get('/console/playground/lists.json', async (request, reply) => {
    const adapter = services.adapters.get(singleValues(request.query, ['manufacturer']).manufacturer ?? '');
    if (!adapter) throw apiErrors.notFound('No such manufacturer.');
    const messageTypes = [...adapter.mappings.keys()].sort();
    const fixtures = await fixturesOf(adapter);
    return reply.header('cache-control', 'no-store').send({ messageTypes, fixtures, fixtureFor: Object.fromEntries(messageTypes.map((t) => [t, fixtureFor(fixtures, t)])) });
  });

  // The raw message and what the edited mapping makes of it, as a case file to download.
  app.post('/console/playground/case.json', async (request) => {
    const form = formOf(request);
    const edited = editedFrom(services.adapters, form);
    if (typeof form.raw !== 'string') throw apiErrors.badRequest('give the raw message as "raw" (text).');
    if (typeof form.name !== 'string' || !CASE_NAME.test(form.name)) throw apiErrors.badRequest('a case name has lowercase letters, digits and "-" (at most 80).');
    const made = await playgroundCase(sandbox, edited, form.raw);
    return 'compileError' in made ? made : { file: `mappings/${edited.adapter.manifest.id}/cases/${form.name}.json`, case: made.case };
  });

  app.post('/console/playground/cases.json', async (request) => playgroundCases(services.paths.mappings, sandbox, editedFrom(services.adapters, formOf(request))));
};
