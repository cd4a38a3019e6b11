import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, authenticateApiKey } from '../../src/auth/api-keys.ts';
import { runCli } from '../../src/cli/run.ts';
import { openStore } from '../../src/store/open-store.ts';
import { loadConfig } from '../../src/config.ts';

const root = resolve(import.meta.dirname, '../..');

interface Run {
  code: number;
  out: string;
  err: string;
  json: () => any;
}

describe('CLI (npm run cli -- …), in process on a real SQLite store', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cvd-cli-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function cli(...argv: string[]): Promise<Run> {
    let out = '';
    let err = '';
    // No REDIS_URL and nothing listening: the CLI must not need Redis.
    const code = await runCli(argv, {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      env: { DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    return { code, out, err, json: () => JSON.parse(out) };
  }

  it('creates a consumer, rotates and revokes keys, creates and lists subscriptions', async () => {
    const created = await cli('consumers', 'create', '--name', 'CLI Co');
    expect(created.code).toBe(0);
    const c = created.json();
    expect(c.apiKey).toMatch(API_KEY_PATTERN);

    expect((await cli('consumers', 'list')).json()).toEqual([{ consumerId: c.consumerId, name: 'CLI Co', createdAt: expect.any(String) }]);
    expect((await cli('consumers', 'get', c.consumerId)).json().name).toBe('CLI Co');

    const second = (await cli('keys', 'create', '--consumer', c.consumerId)).json();
    expect(second.apiKey).toMatch(API_KEY_PATTERN);
    const revoked = await cli('keys', 'revoke', '--consumer', c.consumerId, '--key', c.keyId);
    expect(revoked.code).toBe(0);
    expect(revoked.json()).toMatchObject({ keyId: c.keyId, revokedNow: true, revokedAt: expect.any(String) });
    const keys = await cli('keys', 'list', '--consumer', c.consumerId);
    expect(keys.out).not.toContain(c.apiKey);
    expect(keys.out).not.toContain(second.apiKey);
    expect(keys.json()).toHaveLength(2);

    // The keys work (or not) against the same store the service opens.
    const store = await openStore(loadConfig({ DATA_DIR: dataDir }));
    try {
      expect(await authenticateApiKey(store, c.apiKey)).toBeNull();
      expect((await authenticateApiKey(store, second.apiKey))?.consumer.consumerId).toBe(c.consumerId);
    } finally {
      await store.close();
    }

    const sub = await cli(
      'subscriptions',
      'create',
      '--consumer',
      c.consumerId,
      '--items',
      'mileage,fuellevel',
      '--items',
      'geolocation',
      '--redirect-url',
      'https://app.example.com/cb',
      '--redirect-url',
      'http://localhost:3000/cb',
    );
    expect(sub.code).toBe(0);
    expect(sub.json()).toMatchObject({
      consumerId: c.consumerId,
      dataItems: ['mileage', 'fuellevel', 'geolocation'],
      allowedRedirectUrls: ['https://app.example.com/cb', 'http://localhost:3000/cb'],
      legalBasis: 'CONSENT',
    });
    const all = await cli('subscriptions', 'create', '--consumer', c.consumerId, '--all-items', '--legal-basis', 'CONTRACT');
    expect(all.json().dataItems.length).toBeGreaterThan(40);
    expect(all.json().legalBasis).toBe('CONTRACT');
    expect((await cli('subscriptions', 'list', '--consumer', c.consumerId)).json()).toHaveLength(2);
    expect((await cli('subscriptions:get', sub.json().subscriptionId)).json()).toEqual(sub.json());
  });

  it('usage errors exit with 2 and a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [[], /Usage: npm run cli/],
      [['frobnicate'], /unknown command "frobnicate"\n/],
      [['mapings', 'test'], /unknown command "mapings test" \(did you mean "mappings test"\?\)/],
      [['consumer', 'list'], /unknown command "consumer list" \(did you mean "consumers list"\?\)/],
      [['mappings:tset'], /unknown command "mappings tset" \(did you mean "mappings test"\?\)/],
      [['mappings', 'dry-run', join(root, 'adapters/virtual/fixtures/virtual.telemetry.electric.json'), '--manufacturer', 'virtul', '--type', 'telemetry'], /no manufacturer "virtul" \(did you mean "virtual"\?\)/],
      [['mappings', 'dry-run', join(root, 'adapters/virtual/fixtures/virtual.telemetry.electric.json'), '--manufacturer', 'virtual', '--type', 'telemetri'], /virtual has no message type "telemetri" \(did you mean "telemetry"\?\)/],
      [['consumers', 'create'], /--name is required/],
      [['consumers', 'create', '--name', 'x', '--colour', 'red'], /Unknown option '--colour'/],
      [['consumers', 'get'], /missing argument <consumerId>/],
      [['consumers', 'get', 'a', 'b'], /unexpected argument "b"/],
      [['subscriptions', 'create', '--consumer', 'x'], /--items .* or --all-items is required/],
      [['subscriptions', 'create', '--consumer', 'x', '--items', 'a', '--all-items'], /either --items or --all-items/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.out).toBe('');
    }
  });

  it('invalid values exit with 2 naming the problem; unknown things with 1; nothing is stored', async () => {
    const c = (await cli('consumers', 'create', '--name', 'Valid')).json();
    const bad = await cli('subscriptions', 'create', '--consumer', c.consumerId, '--items', 'mileage,hoverboard');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown data items: hoverboard\n/);
    const typo = await cli('subscriptions', 'create', '--consumer', c.consumerId, '--items', 'milage,fuellevel');
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/unknown data items: milage \(did you mean "mileage"\?\)/);
    const badUrl = await cli('subscriptions', 'create', '--consumer', c.consumerId, '--items', 'mileage', '--redirect-url', 'http://evil.example.com');
    expect(badUrl.code).toBe(2);
    expect(badUrl.err).toMatch(/must use https/);
    expect((await cli('subscriptions', 'list')).json()).toEqual([]);

    const missing = await cli('keys', 'revoke', '--consumer', c.consumerId, '--key', 'nope');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/API key not found/);
    expect((await cli('consumers', 'get', 'nobody')).code).toBe(1);
  });

  it('--help lists every command; <command> --help shows its options', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    for (const name of ['consumers create', 'consumers list', 'keys create', 'keys revoke', 'keys list', 'subscriptions create', 'subscriptions list']) {
      expect(help.out).toContain(name);
    }
    const one = await cli('subscriptions', 'create', '--help');
    expect(one.code).toBe(0);
    expect(one.out).toMatch(/--redirect-url <value>.*\(repeatable\)/);
  });

  it('an invalid configuration stops it with the variable named (exit 78)', async () => {
    let err = '';
    const code = await runCli(['consumers', 'list'], { stdout: () => {}, stderr: (s) => (err += s), env: { DATA_DIR: dataDir, MONGO_URL: 'http://nope' } });
    expect(code).toBe(78);
    expect(err).toMatch(/MONGO_URL/);
  });

  it('runs as `npm run cli` in its own process, without Redis', async () => {
    const run = promisify(execFile);
    const env = { ...process.env, DATA_DIR: dataDir, REDIS_URL: '', LOG_LEVEL: 'info' };
    const { stdout } = await run('npm', ['run', '-s', 'cli', '--', 'consumers', 'create', '--name', 'Spawned'], { cwd: root, env });
    expect(JSON.parse(stdout).apiKey).toMatch(API_KEY_PATTERN);
    const failed = await run('npm', ['run', '-s', 'cli', '--', 'consumers', 'create'], { cwd: root, env }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/--name is required/);
  });
});
