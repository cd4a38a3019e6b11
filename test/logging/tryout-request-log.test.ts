import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';

/*
 * In the try-out (DEMO_SEED on) the per-request lines are at debug, so the
 * demo block stays in view at LOG_LEVEL=info; a deployment keeps them at info.
 */
describe('request log lines', () => {
  const requestLines = async (env: Record<string, string>) => {
    const t = await createTestApp({ env: { LOG_LEVEL: 'info', ...env } });
    try {
      await t.app.inject('/catalog/v1/data-items/mileage');
      await t.app.inject('/catalog/v1/data-items/warpdrive');
      return t.logs.filter((l) => /"msg":"(incoming request|request completed)"/.test(l));
    } finally {
      await t.cleanup();
    }
  };

  it('are at debug in the try-out, so LOG_LEVEL=info does not show them', async () => {
    expect(await requestLines({ DEMO_SEED: 'true' })).toEqual([]);
    expect((await requestLines({ DEMO_SEED: 'true', LOG_LEVEL: 'debug' })).length).toBe(4);
  });

  it('stay at info elsewhere', async () => {
    expect((await requestLines({ DEMO_SEED: 'false' })).length).toBe(4);
  });
});
