import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { renderEnvExample } from '../scripts/env-example.ts';

describe('configuration', () => {
  it('has a default for every key', () => {
    const cfg = loadConfig({});
    expect(cfg.PORT).toBe(8080);
    expect(cfg.publicUrl).toBe('http://localhost:8080');
    expect(cfg.consentUrl).toBe(cfg.publicUrl);
    expect(cfg.ROLES).toEqual(['api', 'broker', 'pipeline', 'push', 'simulator']);
    expect(cfg.MQTT_PORT).not.toBe(1883);
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

  it('.env.example lists every key with its default (run `npm run env:example` after adding one)', () => {
    expect(readFileSync(new URL('../.env.example', import.meta.url), 'utf8')).toBe(renderEnvExample());
  });
});
