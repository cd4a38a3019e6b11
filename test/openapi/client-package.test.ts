import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { seedDemo } from '../../src/main/demo-seed.ts';
import { Browser, runFlow } from '../consent/harness.ts';
import { startFleetService, type FleetService } from '../e2e/fleet-service.ts';
import { waitFor } from '../e2e/live-calls.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const CLIENT = join(ROOT, 'clients/typescript');
const VIN = 'V1RTUALV1N0000001';

/** The ```ts block of the client's README: the journey a consumer copies. */
const journey = () => /```ts\n([\s\S]*?)```/.exec(readFileSync(join(CLIENT, 'README.md'), 'utf8'))![1]!;

/*
 * The client as a consumer gets it: `npm pack` builds the tarball (prepack), a fresh project
 * installs it (from the file, offline: it has no dependency), takes the settings `tsc --init`
 * writes, compiles the README's journey and runs it against a started service with the virtual
 * fleet, as the README says: the demo consumer of the try-out, its vehicle consented to in the
 * browser. TypeScript and @types/node come from this repository's installs, never the network.
 */
describe('the client package, packed and installed into a fresh project', () => {
  let dir: string;
  let tarball: string;
  const tsc = join(CLIENT, 'node_modules/typescript/bin/tsc');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-client-package-'));
    const packed = join(dir, 'packed');
    mkdirSync(packed);
    await run('npm', ['pack', '--silent', '--pack-destination', packed], { cwd: CLIENT, env: { ...process.env, npm_config_update_notifier: 'false' } });
    tarball = join(packed, readdirSync(packed).find((f) => f.endsWith('.tgz'))!);
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fleet-app', version: '1.0.0', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: project, env: { ...process.env, npm_config_update_notifier: 'false' } });
    // The compiler and Node's types as `npm install --save-dev typescript @types/node` would add them.
    mkdirSync(join(project, 'node_modules/@types'), { recursive: true });
    symlinkSync(join(CLIENT, 'node_modules/typescript'), join(project, 'node_modules/typescript'));
    symlinkSync(join(ROOT, 'node_modules/@types/node'), join(project, 'node_modules/@types/node'));
    await run(process.execPath, [tsc, '--init'], { cwd: project });
    // As the README says: `"types": []` from tsc --init, with "node" added.
    const config = readFileSync(join(project, 'tsconfig.json'), 'utf8');
    expect(config).toMatch(/"types": \[\]/);
    expect(config).toMatch(/"exactOptionalPropertyTypes": true/);
    writeFileSync(join(project, 'tsconfig.json'), config.replace('"types": []', '"types": ["node"]'));
    writeFileSync(join(project, 'journey.ts'), journey());
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const project = () => join(dir, 'project');

  it('is a tarball of built JavaScript with type declarations, ESM and CommonJS, and nothing private', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');
    for (const f of ['package/dist/esm/index.js', 'package/dist/esm/index.d.ts', 'package/dist/cjs/index.js', 'package/dist/cjs/index.d.ts', 'package/dist/cjs/package.json', 'package/README.md']) expect(files).toContain(f);
    expect(files.filter((f) => f.includes('node_modules') || f.endsWith('.tgz'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(project(), 'node_modules/@connected-vehicle-data/client/package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.exports['.'].import.default).toBe('./dist/esm/index.js');
    // Its declarations import JavaScript paths, which every resolution mode can follow.
    expect(readFileSync(join(project(), 'node_modules/@connected-vehicle-data/client/dist/esm/index.d.ts'), 'utf8')).not.toMatch(/from '\.[^']*\.ts'/);
    const cjs = await run(process.execPath, ['-e', "const c = require('@connected-vehicle-data/client'); console.log(typeof c.createClient, typeof c.verifyWebhook)"], { cwd: project() });
    expect(cjs.stdout.trim()).toBe('function function');
  });

  it('compiles the README journey under tsc --init’s settings, its own declarations checked too', async () => {
    await run(process.execPath, [tsc, '-p', '.'], { cwd: project() }).catch((e: { stdout: string }) => expect.fail(e.stdout));
    await run(process.execPath, [tsc, '-p', '.', '--skipLibCheck', 'false', '--noEmit'], { cwd: project() }).catch((e: { stdout: string }) => expect.fail(e.stdout));
    expect(existsSync(join(project(), 'journey.js'))).toBe(true);
  }, 120_000);

  describe('against a started service', () => {
    let fleet: FleetService;
    let env: Record<string, string>;
    beforeAll(async () => {
      // Real time (webhook-timestamp is checked against the verifier's clock); the fleet runs ×60.
      fleet = await startFleetService(systemClock, { SIM_CLOCK: 'scaled:60@2026-11-25T08:10:00Z', DEMO_SEED: 'true' });
      const { t } = fleet;
      let block = '';
      const seed = (await seedDemo(t.services, (s) => (block += s), { wing: t.wing }))!;
      // Step 1 of the demo block: the variables the README's journey reads.
      const exported = /export CVD_URL='([^']+)' CVD_API_KEY='([^']+)' CVD_SUBSCRIPTION_ID='([^']+)'/.exec(block)!;
      env = { CVD_URL: exported[1]!, CVD_API_KEY: exported[2]!, CVD_SUBSCRIPTION_ID: exported[3]! };
      expect(env.CVD_URL).toBe(t.origin);
      const c = { consumerId: seed.consumerId, subscriptionId: seed.subscriptionId, apiKey: seed.apiKey, headers: { 'x-api-key': seed.apiKey, 'x-subscription-id': seed.subscriptionId } };
      // Step 1 also activates the vehicles (the journey does it again, which changes nothing).
      const activation = JSON.parse(/-d '(\{"action":"activate"[^']+)'/.exec(block)![1]!);
      await fetch(`${t.origin}/management/v1/vehicles`, { method: 'PUT', headers: { ...c.headers, 'content-type': 'application/json' }, body: JSON.stringify(activation) });
      // Step 2: the user's consent in the browser, coming back to the demo's own page.
      await runFlow(t, c, new Browser(), { params: { redirectUrl: seed.allowedRedirectUrls[0], vin: VIN } });
      await fleet.startFleet();
      // The vehicle has sent its mileage (the journey pulls what has arrived).
      await waitFor(async () => {
        const res = await fetch(`${t.origin}/delivery/v1/in-vehicle`, {
          method: 'POST',
          headers: { ...c.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: VIN } }], dataItems: ['mileage'] }),
        });
        return res.status === 200 && (await res.text()).includes('dataPoint');
      }, 'the mileage of V1RTUALV1N0000001');
    }, 120_000);
    afterAll(async () => fleet?.close());

    it('runs as written: activates, reads capabilities, pulls, pages the history, verifies a signed push, and exits', async () => {
      const { stdout, stderr } = await run(process.execPath, ['journey.js'], { cwd: project(), env: { ...process.env, ...env }, timeout: 90_000 }).catch((e: { stdout: string; stderr: string }) =>
        expect.fail(`journey failed: ${e.stderr}\n${e.stdout}`),
      );
      expect(stderr).toBe('');
      const lines = stdout.trim().split('\n');
      const latest = JSON.parse(lines.find((l) => l.startsWith('latest '))!.slice('latest '.length));
      expect(latest.identifier).toEqual({ type: 'VIN', value: VIN });
      expect(latest.response.mileage.dataPoint).toMatchObject({ unit: 'km' });
      // Only items the vehicle has sent: no "not supplied" or "not yet" among them.
      expect(JSON.stringify(latest)).not.toMatch(/CAR\.VE\.9/);
      expect(lines.filter((l) => l.startsWith('history ')).length).toBeGreaterThan(0);
      expect(lines.at(-1)).toMatch(/^verified push [0-9a-f-]{36}$/);
    }, 120_000);
  });
});
