import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { addConsumer, createTestApp, type TestConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { deployment, type Deployment } from './service-env.ts';
import { ROOT, startService, waitForHttp, type ServiceProcess } from './service-process.ts';

const run = promisify(execFile);
const VIN = 'V1RTUALV1N0000001';

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)));
}

/** The virtual wing's routes: the simulated authorization servers and polled API, their admin routes, the demo page, the sandbox. */
const WING_ROUTES: [method: string, path: string][] = [
  ['GET', '/oem/virtual/authorize'],
  ['POST', '/oem/virtual/token'],
  ['POST', '/oem/kestrel/token'],
  ['PUT', '/admin/v1/oem/virtual/fault'],
  ['GET', '/admin/v1/oem/kestrel/api-requests'],
  ['GET', '/demo/callback'],
  ['POST', `/sandbox/v1/vehicles/${VIN}/events`],
];

/*
 * The production build (`npm run build`: tsc to dist/) run by plain node, with no TypeScript
 * loader, next to the try-out's `tsx src/server.ts`: both serve the same answers from one store.
 * The build goes to a folder of its own under .tmp/ so that it never touches a developer's dist/.
 * It holds no file of the virtual wing, and its process (SIMULATOR=off, as in the production
 * image) runs without it.
 */
describe('the compiled build', () => {
  const outDir = join(ROOT, '.tmp', `build-${process.pid}`);
  let d: Deployment;
  let t: TestServices;
  let consumer: TestConsumer;
  const procs: ServiceProcess[] = [];
  const origins: { compiled: string; tsx: string } = { compiled: '', tsx: '' };

  beforeAll(async () => {
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT });
    // Both processes answer with the same public origin, so that links in answers compare equal.
    d = deployment(inject('redisUrl'), { PUBLIC_URL: 'http://cvd.example', LOG_LEVEL: 'warn' });
    const [compiledPort, tsxPort] = [await freePort(), await freePort()];
    origins.compiled = `http://127.0.0.1:${compiledPort}`;
    origins.tsx = `http://127.0.0.1:${tsxPort}`;
    procs.push(startService('compiled', { nodeArgs: [join(outDir, 'src', 'server.js')], env: d.env({ ROLES: 'api', PORT: String(compiledPort) }) }));
    procs.push(startService('tsx', { env: d.env({ ROLES: 'api', PORT: String(tsxPort) }) }));
    await Promise.all([waitForHttp(`${origins.compiled}/ready`, 200, 60_000, procs[0]), waitForHttp(`${origins.tsx}/ready`, 200, 60_000, procs[1])]);
    t = await createTestServices({ env: d.env() });
    consumer = await addConsumer(t, { dataItems: ['mileage', 'geolocation'] });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await t?.cleanup();
    d?.cleanup();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('is JavaScript only, and its process runs without a TypeScript loader', () => {
    const files = filesBelow(outDir);
    expect(files).toContain(join('src', 'server.js'));
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    const cmdline = readFileSync(`/proc/${procs[0]!.child.pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    expect(cmdline).toContain(join(outDir, 'src', 'server.js'));
    expect(cmdline).not.toMatch(/tsx|--import|--loader/);
  });

  it.each([
    ['GET', '/health'],
    ['GET', '/catalog/v1/data-items'],
    ['GET', '/catalog/v1/data-items/mileage'],
    ['GET', '/docs/json'],
    ['GET', '/management/v1/vehicles'],
    ['PUT', '/management/v1/vehicles'],
    ['POST', '/delivery/v1/in-vehicle'],
    ['GET', '/catalog/v1/data-items/no-such-item'],
    ['GET', '/console/sign-in'],
    ['GET', '/console/assets/console.css'],
  ])('%s %s answers the same as under tsx', async (method, path) => {
    const body =
      method === 'PUT' ? { action: 'activate', vins: [VIN] } : method === 'POST' ? { vins: [VIN], dataItems: ['mileage', 'geolocation'] } : undefined;
    const call = async (origin: string) => {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers: { ...consumer.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      // Request ids, times and form tokens differ between two calls; everything else must not.
      const stable = text.replace(/"(requestId|timestamp|createdAt|updatedAt)":"[^"]*"/g, '"$1":"…"').replace(/name="csrf" value="[^"]*"/g, 'name="csrf" value="…"');
      return { status: res.status, type: res.headers.get('content-type'), body: stable };
    };
    const tsx = await call(origins.tsx);
    const compiled = await call(origins.compiled);
    expect(compiled.status).toBeLessThan(500);
    expect(compiled).toEqual(tsx);
  });

  it('holds no file of the virtual wing (src/virtual/, simulator/), only the loader that would look for it', () => {
    const files = filesBelow(outDir);
    expect(files.filter((f) => f.startsWith(join('src', 'virtual')) || f.startsWith('simulator'))).toEqual([]);
    expect(files).toContain(join('src', 'main', 'wing.js'));
  });

  it('its process (SIMULATOR=off) is ready and answers 404 where the wing would answer', async () => {
    expect((await fetch(`${origins.compiled}/ready`)).status).toBe(200);
    // The repository's manufacturers name hosted authorization servers: the process says they have no consent flow here.
    const warning = procs[0]!.lines.find((l) => l.includes('hosts only with the virtual wing'));
    expect(warning).toBeDefined();
    expect(JSON.parse(warning!).manufacturers).toEqual(expect.arrayContaining(['virtual', 'kestrel', 'borealis']));
    const adminAndConsumer = { authorization: 'Bearer ops-admin-token-0001', ...consumer.headers, 'content-type': 'application/json' };
    for (const [method, path] of WING_ROUTES) {
      const res = await fetch(`${origins.compiled}${path}`, { method, headers: adminAndConsumer, ...(method === 'GET' ? {} : { body: '{}' }) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // The same paths are the wing's, and answered, where it is loaded (the test app loads it).
    const withWing = await createTestApp({ sandbox: true });
    try {
      for (const [method, path] of WING_ROUTES) {
        const res = await withWing.app.inject({ method: method as 'GET', url: path, headers: { authorization: 'Bearer test-admin-token' }, ...(method === 'GET' ? {} : { payload: {} }) });
        expect(res.statusCode, `${method} ${path} with the wing`).not.toBe(404);
      }
    } finally {
      await withWing.cleanup();
    }
  });

  it('with SIMULATOR=on it stops at once (78), saying that this build has no virtual wing', async () => {
    const started = run(process.execPath, [join(outDir, 'src', 'server.js')], { cwd: ROOT, env: { ...process.env, ...d.env({ ROLES: 'api', PORT: String(await freePort()), SIMULATOR: 'on' }), ENV_FILE: '' } });
    const failed = await started.then(
      () => null,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failed?.code).toBe(78);
    expect(failed?.stderr).toMatch(/SIMULATOR is on, but this build has no virtual wing/);
  });

  it('runs the CLI compiled too (its commands are found as .js files)', async () => {
    const { stdout } = await run(process.execPath, [join(outDir, 'src', 'cli', 'main.js'), 'help'], { cwd: ROOT, env: { ...process.env, ...d.env(), ENV_FILE: '' } });
    expect(stdout).toMatch(/consumers create/);
    expect(stdout).toMatch(/mappings test/);
    expect(existsSync(join(outDir, 'src', 'cli', 'commands', 'mappings.js'))).toBe(true);
  });
});
