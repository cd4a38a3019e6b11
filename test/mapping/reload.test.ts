import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { recentOutcomes } from '../../src/mapping-cases/reload-bus.ts';
import { startMappingReloads, type MappingReloads } from '../../src/main/mapping-reloads.ts';
import { dryRun } from '../../src/pipeline/dry-run.ts';
import { BAD_SEVERITY, GOOD_SEVERITY } from '../e2e/console-service.ts';
import { redisEnv } from '../helpers/redis-env.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { copyProject, waitFor } from '../pipeline/harness.ts';

const COLLISION = 'borealis.incident.collision.json';

/**
 * Mappings and manifests without a restart (docs/adding-a-manufacturer.md): a process serves
 * the files on disk once the changed manufacturer's cases pass, and keeps what it served, saying
 * why, when they do not.
 */
describe('mapping reloads', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  const processes: { t: TestServices; reloads: MappingReloads }[] = [];
  afterEach(async () => {
    for (const p of processes.splice(0)) {
      await p.reloads.close();
      await p.t.cleanup();
    }
    project?.cleanup();
  });

  /** One service process on the copied project, listening for reloads. */
  async function start(env: Record<string, string> = {}) {
    const t = await createTestServices({ paths: project!.paths, env });
    const reloads = startMappingReloads(t.services);
    await reloads.listening;
    processes.push({ t, reloads });
    return { t, reloads, services: t.services };
  }
  const file = (...p: string[]) => join(project!.paths.mappings, ...p);
  const edit = (path: string, from: string | RegExp, to: string) => writeFileSync(path, readFileSync(path, 'utf8').replace(from, to));
  const served = (t: TestServices, m = 'borealis', type = 'incident') => t.services.adapters.get(m)!.mappings.get(type)!.version;
  const collision = (t: TestServices) => readFileSync(join(project!.paths.adapters, 'borealis', 'fixtures', COLLISION), 'utf8');

  it('serves a changed mapping whose cases pass; keeps the old one when a case fails, and says which', async () => {
    project = copyProject();
    const { t, reloads, services } = await start();
    const before = served(t);

    // A change the cases accept: served at once, by the pipeline's own registry.
    edit(file('borealis', 'incident.jsonata'), GOOD_SEVERITY, `${GOOD_SEVERITY} /* reloaded */`);
    const applied = await reloads.reload('test');
    expect(applied).toMatchObject({ outcome: 'applied', problems: [], changes: [{ manufacturer: 'borealis', mappings: [{ messageType: 'incident', from: before }] }] });
    const good = served(t);
    expect(good).not.toBe(before);
    expect((await dryRun(services.adapters, services.catalog, 'borealis', 'incident', collision(t), '2026-11-25T12:00:00.000Z'))!.mappingVersion).toBe(good);

    // The severity as a string: the collision case fails, so the process keeps serving `good`.
    edit(file('borealis', 'incident.jsonata'), GOOD_SEVERITY, BAD_SEVERITY);
    const refused = await reloads.reload('test');
    expect(refused.outcome).toBe('refused');
    expect(refused.problems.join('\n')).toMatch(/case borealis\/cases\/incident-collision\.json: .*crashseverity/);
    expect(served(t)).toBe(good);
    const dry = await dryRun(services.adapters, services.catalog, 'borealis', 'incident', collision(t), '2026-11-25T12:00:00.000Z');
    expect(dry).toMatchObject({ valid: true, mappingVersion: good });
    // The reason is logged, and recorded where the console reads it.
    expect(t.logs.some((l) => l.includes('mapping reload refused') && l.includes('incident-collision.json'))).toBe(true);
    const [last] = await recentOutcomes(services.redis, services.config.QUEUE_PREFIX);
    expect(last).toMatchObject({ outcome: 'refused', trigger: 'test', requestId: null });
    expect(last!.problems.join()).toContain('incident-collision.json');
  });

  it('refuses a mapping that does not compile, and a manifest change that takes a restart', async () => {
    project = copyProject();
    const { t, reloads } = await start();
    const before = served(t, 'kestrel', 'signals');
    edit(file('kestrel', 'signals.jsonata'), /^/, '{ "unclosed": ');
    expect((await reloads.reload('test')).problems.join()).toMatch(/signals/);
    expect(served(t, 'kestrel', 'signals')).toBe(before);
    edit(file('kestrel', 'signals.jsonata'), '{ "unclosed": ', '');

    const manifest = join(project.paths.adapters, 'kestrel', 'manifest.json');
    edit(manifest, '"intervalS": 60', '"intervalS": 30');
    expect((await reloads.reload('test')).problems).toEqual(['adapters/kestrel/manifest.json: transport changed: that takes a restart']);
    edit(manifest, '"intervalS": 30', '"intervalS": 60');
    // A manifest's items are taken over, but checked by the cases: one the mapping produces cannot go.
    const original = readFileSync(manifest, 'utf8');
    edit(manifest, '"coolanttemperature", ', '');
    expect((await reloads.reload('test')).problems.join()).toMatch(/coolanttemperature/);
    writeFileSync(manifest, original);
    edit(manifest, '"coolanttemperature", ', '"coolanttemperature", "environmentaltemperature", ');
    edit(manifest, 'Kestrel Automotive (simulated)', 'Kestrel Automotive');
    const applied = await reloads.reload('test');
    expect(applied).toMatchObject({ outcome: 'applied', changes: [{ manufacturer: 'kestrel', manifest: ['name', 'items'], mappings: [] }] });
    expect(t.services.adapters.get('kestrel')!.manifest).toMatchObject({ name: 'Kestrel Automotive', items: expect.arrayContaining(['coolanttemperature', 'environmentaltemperature']) });
  });

  it('every process serves the change after `npm run cli -- mappings reload`; the command says which refused', async () => {
    project = copyProject();
    const prefix = `t${Math.random().toString(36).slice(2, 10)}`;
    const a = await start({ QUEUE_PREFIX: prefix });
    const b = await start({ QUEUE_PREFIX: prefix });
    edit(file('borealis', 'incident.jsonata'), GOOD_SEVERITY, `${GOOD_SEVERITY} /* v2 */`);
    let out = '';
    let err = '';
    const cli = (args: string[]) =>
      runCli(['mappings', 'reload', ...args], {
        stdout: (s) => (out += s),
        stderr: (s) => (err += s),
        env: { ...redisEnv(), QUEUE_PREFIX: prefix, DATA_DIR: a.t.dataDir, ENV_FILE: '' },
        paths: project!.paths,
      });
    expect(await cli([])).toBe(0);
    const answer = JSON.parse(out) as { processes: number; outcomes: { outcome: string }[] };
    expect(answer.processes).toBe(2);
    expect(answer.outcomes.map((o) => o.outcome)).toEqual(['applied', 'applied']);
    expect(served(a.t)).toBe(served(b.t));
    expect(served(a.t)).toMatch(/^incident\.jsonata@/);
    expect(err).toContain('2 of 2 processes serve the files on disk');

    const v2 = served(a.t);
    edit(file('borealis', 'incident.jsonata'), GOOD_SEVERITY, BAD_SEVERITY);
    out = '';
    err = '';
    expect(await cli(['--wait', '20'])).toBe(1);
    expect(err).toMatch(/REFUSED [^\n]*\n[\s\S]*case borealis\/cases\/incident-collision\.json/);
    expect(err).toContain('2 refused and keep their mappings');
    expect([served(a.t), served(b.t)]).toEqual([v2, v2]);
  });

  it('in the try-out (MAPPINGS_WATCH) a saved mapping is served within seconds, and a failing one is not', async () => {
    project = copyProject();
    const { t } = await start({ MAPPINGS_WATCH: 'true' });
    const before = served(t);
    edit(file('borealis', 'incident.jsonata'), GOOD_SEVERITY, `${GOOD_SEVERITY} /* saved */`);
    const saved = await waitFor(() => (served(t) !== before ? served(t) : null), 15_000, 'the saved mapping served');
    edit(file('borealis', 'incident.jsonata'), GOOD_SEVERITY, BAD_SEVERITY);
    const refusal = await waitFor(
      async () => (await recentOutcomes(t.services.redis, t.services.config.QUEUE_PREFIX)).find((o) => o.outcome === 'refused'),
      15_000,
      'the refusal recorded',
    );
    expect(refusal.trigger).toMatch(/^file change: borealis[/\\]incident\.jsonata$/);
    expect(served(t)).toBe(saved);
  });
});
