import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../src/transports/http/signature.ts';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { buildApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/run.ts';
import type { Paths } from '../../src/paths.ts';
import { copyProject, startHarness, waitFor, type Harness } from '../pipeline/harness.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

/*
 * `manufacturers new` as a data engineer runs it: the two folders it writes pass
 * `mappings:test` at once, and the service starts with them and takes the scaffold's own
 * fixture in over its transport (a polled one: accepted; nothing polls it yet).
 */

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(paths: Paths, dataDir: string, ...argv: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), env: { DATA_DIR: dataDir }, paths });
  return { code, out, err };
}

describe('manufacturers new', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.stop();
    project?.cleanup();
    harness = undefined;
    project = undefined;
  });

  const scaffold = async (id: string, ...args: string[]) => {
    project ??= copyProject();
    const r = await cli(project.paths, join(project.paths.adapters, '..'), 'manufacturers', 'new', id, ...args);
    return { r, paths: project.paths };
  };
  /*
   * Ids and VIN prefixes no manufacturer of the repository has, whichever manufacturers it holds:
   * a new manufacturer (an "acme", say) must not make this test fail.
   */
  const fresh = () => {
    project ??= copyProject();
    const { adapters } = project.paths;
    const taken = readdirSync(adapters)
      .filter((d) => existsSync(join(adapters, d, 'manifest.json')))
      .flatMap((d) => JSON.parse(readFileSync(join(adapters, d, 'manifest.json'), 'utf8')).vinPrefixes as string[]);
    const id = (base: string) => {
      let candidate = base;
      for (let n = 2; existsSync(join(adapters, candidate)) || existsSync(join(project!.paths.mappings, candidate)); n++) candidate = `${base}${n}`;
      return candidate;
    };
    // Longer than any prefix the tests derive from it (`${p}X`), and overlapping none that exists.
    const free = (p: string) => ![p, `${p}X`].some((c) => taken.some((t) => t.startsWith(c) || c.startsWith(t)));
    const prefix = [...'ZYWV98'].flatMap((a) => [...'0123456789'].map((b) => `Z${a}${b}`)).find(free)!;
    return { id, prefix };
  };
  const fixtureOf = (paths: Paths, id: string, type: string) => readFileSync(join(paths.adapters, id, 'fixtures', `${id}.${type}.json`), 'utf8');

  for (const transport of ['mqtt', 'http', 'poll'] as const) {
    it(`writes a ${transport} manufacturer that passes mappings:test at once and that the service starts with`, async () => {
      const { id: freeId, prefix } = fresh();
      const id = freeId(`acme-${transport}`);
      const { r, paths } = await scaffold(id, '--transport', transport, '--vin-prefix', prefix);
      expect(r.code, r.err).toBe(0);
      const type = transport === 'poll' ? 'signals' : 'telemetry';
      expect(JSON.parse(r.out)).toMatchObject({
        manufacturer: id,
        transport,
        messageType: type,
        files: [`adapters/${id}/manifest.json`, `adapters/${id}/README.md`, `adapters/${id}/fixtures/${id}.${type}.json`, `mappings/${id}/${type}.jsonata`, `mappings/${id}/cases/${type}.json`],
      });
      const manifest = JSON.parse(readFileSync(join(paths.adapters, id, 'manifest.json'), 'utf8'));
      // The consent flow points at the simulated server this service hosts, as borealis does.
      expect(manifest.authorization).toMatchObject({ issuer: `/oem/${id}`, authorizationEndpoint: `/oem/${id}/authorize`, tokenEndpoint: `/oem/${id}/token` });

      const tested = await cli(paths, join(paths.adapters, '..'), 'mappings', 'test', '--manufacturer', id);
      expect(tested.code, tested.err).toBe(0);
      expect(JSON.parse(tested.out)).toEqual({ cases: 1, passed: 1, failed: [] });

      harness = await startHarness({ paths });
      const { services } = harness;
      const adapter = services.adapters.get(id)!;
      expect(adapter.manifest.transport.kind).toBe(transport);
      const vin = manifest.vinPrefixes[0].padEnd(16, '0') + '1';
      if (transport === 'mqtt') {
        const client = await harness.connect(id);
        await client.publishAsync(`${id}/v1/${vin}/telemetry`, fixtureOf(paths, id, type), { qos: 1 });
      }
      const app = await buildApp(services, routeContexts(services));
      try {
        expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
        if (transport === 'http') {
          const body = JSON.stringify({ records: [JSON.parse(fixtureOf(paths, id, type))] });
          const signature = signBody(adapterSecret(services.config, adapter), Math.floor(services.clock.now().getTime() / 1000), body);
          const res = await app.inject({
            method: 'POST',
            url: `/ingest/v1/${id}`,
            headers: { 'content-type': 'application/json', [manifest.transport.signatureHeader.toLowerCase()]: signature },
            payload: body,
          });
          expect(res.statusCode, res.body).toBe(202);
        }
      } finally {
        await app.close();
      }
      if (transport !== 'poll') {
        await waitFor(async () => (await services.store.dataPoints.count()) === 1, 10_000, 'the mileage point');
        const [point] = await services.store.dataPoints.latest([vin], ['mileage']);
        expect(point).toMatchObject({ vin, item: 'mileage', manufacturer: id, payload: { value: 12346, unit: 'km', timestamp: '2026-11-25T10:00:00.000Z' } });
      } else {
        const secret = await cli(paths, harness.dataDir, 'adapters', 'secret', id);
        expect(JSON.parse(secret.out)).toMatchObject({ manufacturer: id, transport: 'poll', clientId: `cvd-${id}-poller`, clientSecret: expect.any(String) });
      }
    });
  }

  it('takes a name, a VIN prefix and further items, and refuses what would not load, suggesting names', async () => {
    const { id: freeId, prefix } = fresh();
    const kite = freeId('kite');
    const hawk = freeId('hawk');
    const { r, paths } = await scaffold(kite, '--transport', 'http', '--name', 'Kite Cars', '--vin-prefix', prefix, '--items', 'vehiclespeed', '--items', 'geolocation');
    expect(r.code, r.err).toBe(0);
    const manifest = JSON.parse(readFileSync(join(paths.adapters, kite, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'Kite Cars', vinPrefixes: [prefix], items: ['mileage', 'vehiclespeed', 'geolocation'] });
    expect(manifest.transport.signatureHeader).toBe(kite === 'kite' ? 'X-Kite-Signature' : expect.stringMatching(/^X-Kite/));

    const refused: [string[], RegExp][] = [
      [[kite, '--transport', 'mqtt'], new RegExp(`manufacturer "${kite}" exists already`)],
      [[hawk, '--transport', 'pol'], /--transport must be mqtt, http or poll, not "pol" \(did you mean "poll"\?\)/],
      [[hawk, '--transport', 'mqtt', '--items', 'milage,hoverboard'], /unknown catalog items: milage \(did you mean "mileage"\?\), hoverboard$/m],
      [[hawk, '--transport', 'mqtt', '--vin-prefix', `${prefix}X`], new RegExp(`VIN prefix ${prefix}X overlaps ${prefix} of "${kite}"`)],
      [[hawk, '--transport', 'mqtt', '--vin-prefix', 'HAWKIO'], /--vin-prefix "HAWKIO": 3 to 16 digits and capital letters but I, O and Q/],
      [['Hawk', '--transport', 'mqtt'], /"Hawk" is not a manufacturer id/],
      [[hawk], /--transport is required/],
    ];
    for (const [argv, message] of refused) {
      const out = await cli(paths, join(paths.adapters, '..'), 'manufacturers', 'new', ...argv);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(out.err).toMatch(message);
    }
    // Nothing of the refused ones was written.
    expect(existsSync(join(paths.adapters, hawk)) || existsSync(join(paths.mappings, hawk))).toBe(false);
    const typo = await cli(paths, join(paths.adapters, '..'), 'mappings', 'test', '--manufacturer', `${kite}x`);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(new RegExp(`no manufacturer "${kite}x" \\(did you mean "${kite}"\\?\\)`));
  });

  it('never lets --name write Markdown or mapping code: a name with a line break is refused, any other shown as text', async () => {
    const { r, paths } = await scaffold('wren', '--transport', 'mqtt', '--name', 'Wren [beta](https://evil.example) <img src=x> *cars* */ $x := 1; /*');
    expect(r.code, r.err).toBe(0);
    const readme = readFileSync(join(paths.adapters, 'wren', 'README.md'), 'utf8');
    expect(readme.split('\n')[0]).toBe('# Wren \\[beta\\](https://evil.example) \\<img src=x\\> \\*cars\\* \\*/ $x := 1; /\\* (`wren`)');
    expect(readme).not.toMatch(/[^\\]\[beta\]|[^\\]<img/);
    // The mapping still compiles and its case passes (the scaffold runs it): the name stayed inside the comment.
    expect(readFileSync(join(paths.mappings, 'wren', 'telemetry.jsonata'), 'utf8')).toContain('/* Wren [beta](https://evil.example) <img src=x> *cars* * / $x := 1; /*:');
    expect(JSON.parse(readFileSync(join(paths.adapters, 'wren', 'manifest.json'), 'utf8')).name).toBe('Wren [beta](https://evil.example) <img src=x> *cars* */ $x := 1; /*');

    for (const name of ['Wren\n# Injected heading', 'Wren\r\n[link](https://evil.example)', 'Wren\u2028x', 'Tab\there', ' ', 'W'.repeat(81)]) {
      const out = await cli(paths, join(paths.adapters, '..'), 'manufacturers', 'new', 'finch', '--transport', 'mqtt', '--name', name);
      expect(out.code, JSON.stringify(name)).toBe(2);
      expect(out.err).toMatch(/--name: one line of text, at most 80 characters, without line breaks or other control characters/);
    }
    expect(existsSync(join(paths.adapters, 'finch'))).toBe(false);
  });
});
