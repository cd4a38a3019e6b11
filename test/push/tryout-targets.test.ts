import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { checkWebhookUrl } from '../../src/push/ssrf/url.ts';

/*
 * In the local try-out (the mode that seeds the demo consumer) a webhook may
 * target a receiver on localhost without a restart; elsewhere the refusal names the setting.
 */
describe('webhooks to loopback in the try-out', () => {
  it('are allowed by default exactly where the demo consumer is seeded', () => {
    expect(loadConfig({}).PUSH_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(loadConfig({ REDIS_URL: 'redis://redis:6379' }).PUSH_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(loadConfig({ MONGO_URL: 'mongodb://mongo:27017' }).PUSH_ALLOW_PRIVATE_TARGETS).toBe(false);
    // A try-out on an existing Redis: DEMO_SEED=true says it is one.
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6390', DEMO_SEED: 'true' }).PUSH_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(loadConfig({ DEMO_SEED: 'false' }).PUSH_ALLOW_PRIVATE_TARGETS).toBe(false);
  });

  it('an explicit setting wins both ways', () => {
    expect(loadConfig({ PUSH_ALLOW_PRIVATE_TARGETS: 'false' }).PUSH_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(loadConfig({ REDIS_URL: 'redis://redis:6379', PUSH_ALLOW_PRIVATE_TARGETS: 'true' }).PUSH_ALLOW_PRIVATE_TARGETS).toBe(true);
  });

  it('elsewhere are refused with a message naming PUSH_ALLOW_PRIVATE_TARGETS', async () => {
    const strict = { allowPrivate: false, resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] };
    for (const url of ['http://localhost:9000/hooks', 'https://127.0.0.1/hooks', 'https://localhost/hooks', 'https://hooks.internal.test/']) {
      const res = await checkWebhookUrl(url, strict);
      expect(res.ok, url).toBe(false);
      if (!res.ok) expect(res.reason, url).toContain('PUSH_ALLOW_PRIVATE_TARGETS=true');
    }
  });
});
