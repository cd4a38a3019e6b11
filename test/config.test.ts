import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEnvFile, ConfigError, loadConfig } from '../src/config.ts';
import { renderEnvExample } from '../scripts/env-example.ts';

describe('configuration', () => {
  it('has a default for every key', () => {
    const cfg = loadConfig({});
    expect(cfg.PORT).toBe(8080);
    expect(cfg.publicUrl).toBe('http://localhost:8080');
    expect(cfg.consentUrl).toBe(cfg.publicUrl);
    expect(cfg.ROLES).toEqual(['api', 'broker', 'pipeline', 'push', 'simulator']);
    expect(cfg.MQTT_PORT).not.toBe(1883);
    expect(cfg.CONSOLE_SESSION_MINUTES).toBe(480);
    expect(cfg.CONSOLE_SAMPLE_SECONDS).toBe(5);
  });

  it('takes overrides from the environment', () => {
    const cfg = loadConfig({ PORT: '9000', PUBLIC_URL: 'https://cvd.example.com/', ROLES: 'api,push', PUSH_RETRY_SCHEDULE_S: '1,2,3' });
    expect(cfg.PORT).toBe(9000);
    expect(cfg.publicUrl).toBe('https://cvd.example.com');
    expect(cfg.ROLES).toEqual(['api', 'push']);
    expect(cfg.PUSH_RETRY_SCHEDULE_S).toEqual([1, 2, 3]);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['MONGO_URL', 'not a url'],
    ['LOG_PRETTY', 'maybe'],
    ['ROLES', 'api,kitchen'],
    ['SECRET_KEY', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['ADMIN_TOKEN', 'x'],
    ['DEMO_SEED', 'maybe'],
    ['CONSOLE_SESSION_MINUTES', '0'],
    ['CONSOLE_SESSION_MINUTES', '10081'],
    ['CONSOLE_SESSION_MINUTES', '1.5'],
    ['CONSOLE_SAMPLE_SECONDS', '0'],
    ['CONSOLE_SAMPLE_SECONDS', '61'],
    ['REDIS_CLUSTER_NODES', 'redis-1'],
    ['REDIS_CLUSTER_NODES', 'http://redis-1:6379'],
    ['REDIS_CLUSTER_NODES', 'rediss://a:b@redis-1:6379,redis://redis-2:6379'],
    ['HARMONIZE_PARTITIONS', '0'],
    ['PUSH_PARTITIONS', '257'],
    ['REDIS_WAIT_REPLICAS', '-1'],
  ])('stops on an invalid %s, naming it', (name, value) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(name);
    expect((caught as Error).message).toContain(name);
  });

  it('takes a Redis Cluster as seeds, and refuses a database other than 0 or REDIS_URL beside it', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000, redis-2:7000,[::1]:7001' }).REDIS_CLUSTER_NODES).toEqual(['redis-1:7000', 'redis-2:7000', '[::1]:7001']);
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'rediss://u:p@redis-1:7000/0,rediss://u:p@redis-2:7000' }).REDIS_CLUSTER_NODES).toHaveLength(2);
    expect(loadConfig({}).REDIS_CLUSTER_NODES).toBeUndefined();
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis://redis-1:7000/2' })).toThrow(/REDIS_CLUSTER_NODES names database 2 in "redis-1:7000": a Redis Cluster has only database 0/);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000', REDIS_URL: 'redis://redis:6379' })).toThrow(/REDIS_CLUSTER_NODES and REDIS_URL are both set/);
    // A cluster is an external Redis: no demo seed, as with REDIS_URL.
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000' }).DEMO_SEED).toBe(false);
  });

  it('.env.example lists every key with its default (run `npm run env:example` after adding one)', () => {
    expect(readFileSync(new URL('../.env.example', import.meta.url), 'utf8')).toBe(renderEnvExample());
  });

  it('.env.example says, first thing, that .env is read and does not override the environment', () => {
    expect(renderEnvExample().split('\n')[0]).toMatch(/\.env in the working directory is read at start.*already set in the environment win/);
  });
});

describe('ADMIN_TOKEN', () => {
  it('needs at least 16 characters: a short token guards erasure and provisioning', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'x'.repeat(15) })).toThrow(/ADMIN_TOKEN must be at least 16 characters/);
    expect(loadConfig({ ADMIN_TOKEN: 'test-admin-token' }).ADMIN_TOKEN).toBe('test-admin-token');
  });

  it('unset or empty: the admin API is off', () => {
    expect(loadConfig({}).ADMIN_TOKEN).toBeUndefined();
    expect(loadConfig({ ADMIN_TOKEN: '' }).ADMIN_TOKEN).toBeUndefined();
  });
});

describe('DEMO_SEED', () => {
  // The seed prints a working API key on stdout, which is the log of a deployed process.
  it('is on by default only for the local try-out (private Redis, embedded SQLite)', () => {
    expect(loadConfig({}).DEMO_SEED).toBe(true);
    expect(loadConfig({ REDIS_URL: 'redis://redis:6379' }).DEMO_SEED).toBe(false);
    expect(loadConfig({ MONGO_URL: 'mongodb://mongo:27017' }).DEMO_SEED).toBe(false);
    expect(loadConfig({ REDIS_URL: 'redis://redis:6379', MONGO_URL: 'mongodb://mongo:27017' }).DEMO_SEED).toBe(false);
  });

  it('an explicit value wins over the default', () => {
    expect(loadConfig({ DEMO_SEED: 'false' }).DEMO_SEED).toBe(false);
    expect(loadConfig({ DEMO_SEED: 'true', REDIS_URL: 'redis://redis:6379', MONGO_URL: 'mongodb://mongo:27017' }).DEMO_SEED).toBe(true);
    expect(loadConfig({ DEMO_SEED: 'on', REDIS_URL: 'redis://redis:6379' }).DEMO_SEED).toBe(true);
  });
});

describe('HOST', () => {
  // The try-out allows private webhook targets and leaves /metrics open: it once answered on every interface.
  it('is loopback by default in the local try-out (neither REDIS_URL nor MONGO_URL), every interface otherwise', () => {
    expect(loadConfig({}).HOST).toBe('127.0.0.1');
    expect(loadConfig({ REDIS_URL: 'redis://redis:6379' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ MONGO_URL: 'mongodb://mongo:27017' }).HOST).toBe('0.0.0.0');
  });

  it('an explicit value wins, in the try-out too', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::1', REDIS_URL: 'redis://redis:6379' }).HOST).toBe('::1');
  });
});

// Every case reads a file in its own temp dir into its own env object: never the working
// directory's .env, never process.env.
describe('applyEnvFile (.env at start)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-envfile-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads .env in the working directory; variables already set, even empty, win', () => {
    writeFileSync(join(dir, '.env'), '# a comment\nPORT=9000\nLOG_LEVEL=debug\nADMIN_TOKEN="from-the-file-0123"\nMONGO_URL=mongodb://x:27017\n');
    const env: NodeJS.ProcessEnv = { PORT: '7000', MONGO_URL: '' };
    expect(applyEnvFile(env, dir).sort()).toEqual(['ADMIN_TOKEN', 'LOG_LEVEL']);
    expect(env).toEqual({ PORT: '7000', MONGO_URL: '', LOG_LEVEL: 'debug', ADMIN_TOKEN: 'from-the-file-0123' });
    expect(loadConfig(env)).toMatchObject({ PORT: 7000, LOG_LEVEL: 'debug', MONGO_URL: undefined });
  });

  it('without a .env it does nothing', () => {
    const env: NodeJS.ProcessEnv = { PORT: '7000' };
    expect(applyEnvFile(env, dir)).toEqual([]);
    expect(env).toEqual({ PORT: '7000' });
  });

  it('ENV_FILE names another file, or none when empty', () => {
    writeFileSync(join(dir, '.env'), 'PORT=9000\n');
    writeFileSync(join(dir, 'other.env'), 'PORT=9100\n');
    const other: NodeJS.ProcessEnv = { ENV_FILE: 'other.env' };
    applyEnvFile(other, dir);
    expect(other.PORT).toBe('9100');
    const none: NodeJS.ProcessEnv = { ENV_FILE: '' };
    expect(applyEnvFile(none, dir)).toEqual([]);
    expect(none.PORT).toBeUndefined();
  });

  it('an ENV_FILE that cannot be read stops the start, naming it', () => {
    expect(() => applyEnvFile({ ENV_FILE: 'missing.env' }, dir)).toThrow(/ENV_FILE.*missing\.env/);
    mkdirSync(join(dir, '.env'));
    expect(() => applyEnvFile({}, dir)).toThrow(ConfigError);
  });
});
