import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCase } from '../../src/mapping-cases/cases.ts';
import { startMappingReloads, type MappingReloads } from '../../src/main/mapping-reloads.ts';
import { BAD_SEVERITY, GOOD_SEVERITY } from '../e2e/console-service.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { copyProject } from '../pipeline/harness.ts';
import { signIn, type ConsoleSignIn } from './session.ts';

/** The console's side of mapping reloads, and the playground's new case files. */
describe('console: mappings and their reloads', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  let t: TestApp | undefined;
  let reloads: MappingReloads | undefined;
  let s: ConsoleSignIn;
  afterEach(async () => {
    await reloads?.close();
    await t?.cleanup();
    project?.cleanup();
    [reloads, t, project] = [undefined, undefined, undefined];
  });
  async function start() {
    project = copyProject();
    t = await createTestApp({ paths: project.paths });
    reloads = startMappingReloads(t.services);
    await reloads.listening;
    s = await signIn(t.app);
  }
  const get = (url: string) => t!.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
  const post = (url: string, payload: object) => t!.app.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, payload });
  const incident = () => join(project!.paths.mappings, 'borealis', 'incident.jsonata');

  it('shows what each manufacturer runs; the reload button reloads; a refusal and its reason show, here and in the playground', async () => {
    await start();
    const page = await get('/console/mappings');
    expect(page.statusCode).toBe(200);
    const before = t!.services.adapters.get('borealis')!.mappings.get('incident')!.version;
    expect(page.body).toMatch(new RegExp(`data-type="incident">incident: <code>${before.replace('.', '\\.')}</code>`));
    expect(page.body).toContain('No reload yet.');

    writeFileSync(incident(), readFileSync(incident(), 'utf8').replace(GOOD_SEVERITY, BAD_SEVERITY));
    const form = `csrf=${encodeURIComponent(s.csrf)}`;
    const res = await t!.app.inject({ method: 'POST', url: '/console/mappings/reload', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/id="reload-summary" class="error">0 of 1 processes serve the files on disk; 1 refused and keep their mappings\./);
    expect(res.body).toContain('case borealis/cases/incident-collision.json');
    expect(t!.services.adapters.get('borealis')!.mappings.get('incident')!.version).toBe(before);

    expect((await get('/console/mappings')).body).toMatch(/<tr data-outcome="refused">[\s\S]*reload command[\s\S]*incident-collision\.json/);
    const playground = await get('/console/playground?manufacturer=borealis&messageType=incident');
    expect(playground.body).toMatch(/id="reload-refused">The last mapping reload .* was refused, so the pipeline still runs the mappings it ran before: case borealis\/cases\/incident-collision\.json/);
  });

  it('the playground saves its output as a case that passes, and lists another manufacturer\'s types and fixtures', async () => {
    await start();
    const raw = readFileSync(join(project!.paths.adapters, 'borealis', 'fixtures', 'borealis.incident.collision.json'), 'utf8');
    const mapping = readFileSync(incident(), 'utf8');
    const saved = await post('/console/playground/case.json', { manufacturer: 'borealis', messageType: 'incident', mapping, raw, name: 'collision-again' });
    expect(saved.statusCode).toBe(200);
    const { file, case: kase } = saved.json() as { file: string; case: { expect: { items: { item: string }[] } } };
    expect(file).toBe('mappings/borealis/cases/collision-again.json');
    expect(kase.expect.items.map((i) => i.item)).toContain('crashseverity');
    const written = join(project!.paths.mappings, 'borealis', 'cases', 'collision-again.json');
    writeFileSync(written, JSON.stringify(kase));
    expect((await runCase(t!.services.adapters, t!.services.catalog, 'borealis', written, project!.paths.mappings)).problems).toEqual([]);

    // With the defect, the case saved expects the failure instead.
    const failing = await post('/console/playground/case.json', { manufacturer: 'borealis', messageType: 'incident', mapping: mapping.replace(GOOD_SEVERITY, BAD_SEVERITY), raw, name: 'collision-broken' });
    expect(failing.json().case.expect).toMatchObject({ error: 'SCHEMA_VIOLATION', reasonContains: expect.stringContaining('crashseverity') });
    expect((await post('/console/playground/case.json', { manufacturer: 'borealis', messageType: 'incident', mapping, raw, name: '../x' })).statusCode).toBe(400);

    const lists = await get('/console/playground/lists.json?manufacturer=kestrel');
    expect(lists.json()).toMatchObject({ messageTypes: ['signals'], fixtureFor: { signals: expect.stringMatching(/^kestrel\.signals\./) } });
    expect((await get('/console/playground/lists.json?manufacturer=nobody')).statusCode).toBe(404);
  });
});
