import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { loadConfig } from '../../src/config.ts';
import { demoInstructions } from '../../src/main/demo-seed.ts';
import { tryOutAdminToken, withTryOutConsole } from '../../src/main/try-out-console.ts';

const dir = mkdtempSync(join(tmpdir(), 'cvd-try-console-'));
const other = mkdtempSync(join(tmpdir(), 'cvd-try-console-'));

describe('the try-out\'s console is on', () => {
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });

  it('gets an admin token of its own, the same at every start of the same try-out, and none elsewhere', () => {
    const tryOut = loadConfig({ DATA_DIR: dir });
    const token = tryOutAdminToken(tryOut)!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(tryOutAdminToken(loadConfig({ DATA_DIR: dir }))).toBe(token);
    expect(tryOutAdminToken(loadConfig({ DATA_DIR: other }))).not.toBe(token);
    expect(withTryOutConsole(tryOut).config.ADMIN_TOKEN).toBe(token);
    // A token of the operator's own counts; a deployment (REDIS_URL, or DEMO_SEED off) gets none.
    expect(tryOutAdminToken(loadConfig({ DATA_DIR: dir, ADMIN_TOKEN: 'operators-own-token' }))).toBeUndefined();
    expect(tryOutAdminToken(loadConfig({ DATA_DIR: dir, REDIS_URL: 'redis://127.0.0.1:6379' }))).toBeUndefined();
    expect(tryOutAdminToken(loadConfig({ DATA_DIR: dir, DEMO_SEED: 'false' }))).toBeUndefined();
  });

  it('the demo block prints the console, the docs and the token; `cli console token` prints it again', async () => {
    const base = { consumerId: 'c', apiKey: 'k', subscriptionId: 's', allowedRedirectUrls: [], publicUrl: 'http://localhost:8080', consentUrl: 'http://localhost:8080', vins: ['V1RTUALV1N0000001'], dataItems: ['mileage'], sandbox: true };
    const block = demoInstructions({ ...base, console: { url: 'http://localhost:8080/console', token: 'tok-123' } });
    expect(block).toContain('    http://localhost:8080/console\n    http://localhost:8080/docs\n   sign in with the token generated for this try-out: tok-123');
    expect(demoInstructions({ ...base, console: { url: 'http://localhost:8080/console', token: null } })).toContain('sign in with your ADMIN_TOKEN.');
    expect(demoInstructions({ ...base, console: null })).toContain('The API docs: http://localhost:8080/docs (the console at /console needs ADMIN_TOKEN).');

    let out = '';
    let err = '';
    const code = await runCli(['console', 'token'], { stdout: (s) => (out += s), stderr: (s) => (err += s), env: { DATA_DIR: dir, ENV_FILE: '' } });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ console: 'http://localhost:8080/console', token: tryOutAdminToken(loadConfig({ DATA_DIR: dir })) });
    expect(await runCli(['console', 'token'], { stdout: () => {}, stderr: (s) => (err += s), env: { DATA_DIR: dir, ENV_FILE: '', DEMO_SEED: 'false' } })).toBe(1);
    expect(err).toContain('set ADMIN_TOKEN to turn the console on');
  });
});
