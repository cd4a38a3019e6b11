import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../helpers/free-port.ts';
import { startProbeServer } from '../../src/main/probe-server.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/** /metrics behind METRICS_TOKEN (only the scraper reads how the installation runs), on the API's port and on PROBE_PORT. */
const TOKEN = 'scrape-token-0123456789';

describe('METRICS_TOKEN', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it('unset (the local try-out): /metrics is open', async () => {
    t = await createTestApp();
    const res = await t.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('# TYPE');
  });

  it('set: without the token, or with a wrong one, 401 with the error body and no metrics; with it, the scrape', async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }]) {
      const res = await t.app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toEqual({ reasonCode: 'CAR.401', reasonText: 'Unauthorized request, invalid metrics token.', url: '/metrics', method: 'GET' });
      expect(res.body).not.toContain('# TYPE');
    }
    const ok = await t.app.inject({ url: '/metrics', headers: { authorization: `bearer ${TOKEN}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toContain('text/plain');
    expect(ok.body).toContain('# TYPE');
  });

  it('set: the probe server of a worker process asks for it too', async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN, PROBE_PORT: String(await freePort()) } });
    const probe = await startProbeServer(t.services);
    try {
      const url = `http://127.0.0.1:${probe.port}/metrics`;
      const open = await fetch(url);
      expect(open.status).toBe(401);
      expect(await open.text()).not.toContain('# TYPE');
      const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('# TYPE');
      // The probes themselves stay open: an orchestrator calls them without a token.
      expect((await fetch(`http://127.0.0.1:${probe.port}/health`)).status).toBe(200);
    } finally {
      await probe.close();
    }
  });

  it('a short token is refused at start, naming the variable', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
  });
});
