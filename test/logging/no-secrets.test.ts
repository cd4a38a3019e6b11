import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/crypto.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { buildGuardedApp } from '../http/guarded-app.ts';

const root = resolve(import.meta.dirname, '../..');
const ADMIN_TOKEN = 'test-admin-token';
const VIN = 'V1RTUALV1N0000S07';

describe('logs never carry API keys, admin tokens, confirmation codes or VINs', () => {
  let t: TestApp;
  const secrets: string[] = [ADMIN_TOKEN, VIN];

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.cleanup());

  it('after real requests carrying all of them, none appears in any log line', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const created = await t.app.inject({ method: 'POST', url: '/admin/v1/consumers', headers: admin, payload: { name: 'Logged' } });
    const { consumerId, apiKey, keyId } = created.json();
    secrets.push(apiKey, apiKey.slice('cvd_live_'.length));
    const sub = await t.app.inject({ method: 'POST', url: '/admin/v1/subscriptions', headers: admin, payload: { consumerId, dataItems: ['mileage'] } });
    const subscriptionId = sub.json().subscriptionId;
    const rotated = (await t.app.inject({ method: 'POST', url: `/admin/v1/consumers/${consumerId}/api-keys`, headers: admin })).json();
    secrets.push(rotated.apiKey);
    const code = randomToken(24);
    secrets.push(code);
    const auth = { 'x-api-key': apiKey, 'x-subscription-id': subscriptionId };

    const requests: InjectOptions[] = [
      { method: 'GET', url: `/management/v1/vehicles/${VIN}`, headers: auth },
      { method: 'GET', url: `/management/v1/vehicles/${VIN.toLowerCase()}/history`, headers: auth },
      { method: 'POST', url: `/api/consent/provisioning/confirmation/${code}`, headers: { 'X-API-Key': apiKey } },
      { method: 'GET', url: `/consent/provision?consumerId=${consumerId}&subscriptionId=${subscriptionId}&vin=${VIN}&code=${code}` },
      { method: 'GET', url: `/callback/virtual?code=${code}&state=abc` },
      { method: 'GET', url: `/management/v1/vehicles?x-api-key=${apiKey}`, headers: { 'x-subscription-id': subscriptionId } },
      { method: 'GET', url: '/admin/v1/consumers', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } },
      { method: 'DELETE', url: `/admin/v1/consumers/${consumerId}/api-keys/${keyId}`, headers: admin },
      {
        method: 'POST',
        url: '/delivery/v1/in-vehicle',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: VIN } }], dataItems: ['mileage'] }),
      },
      { method: 'POST', url: '/admin/v1/consumers', headers: { ...admin, 'content-type': 'application/json' }, payload: `{"name": "${apiKey}", "apiKey": "${apiKey}"}` },
    ];
    for (const r of requests) await t.app.inject(r);

    // The same through the auth hook's own failures and a 500, logged by the service logger.
    const guarded = await buildGuardedApp(t.services, { logger: true });
    await guarded.inject({ method: 'GET', url: '/guarded', headers: { 'x-api-key': apiKey, 'x-subscription-id': subscriptionId } });
    await guarded.inject({ method: 'GET', url: '/guarded', headers: { 'x-api-key': rotated.apiKey, 'x-subscription-id': 'nope' } });
    await guarded.inject({ method: 'GET', url: `/boom?key=${apiKey}`, headers: { 'x-api-key': apiKey } });
    await guarded.close();

    const lines = t.logs.join('').split('\n').filter(Boolean);
    // The check means something only if the requests were logged at all.
    expect(lines.length).toBeGreaterThan(requests.length * 2);
    const entries = lines.map((l) => JSON.parse(l) as { msg?: string; reqId?: string; req?: { url?: string } });
    const urls = entries.map((e) => e.req?.url).filter(Boolean);
    expect(urls).toContain('/management/v1/vehicles/[vin]');
    expect(urls).toContain('/api/consent/provisioning/confirmation/[code]');
    expect(entries.filter((e) => e.msg === 'incoming request').every((e) => typeof e.reqId === 'string')).toBe(true);

    const all = t.logs.join('');
    for (const s of secrets) {
      expect(all.includes(s), `log contains ${s.slice(0, 12)}…`).toBe(false);
      expect(all.toLowerCase().includes(s.toLowerCase()), `log contains ${s.slice(0, 12)}… (any case)`).toBe(false);
    }
  });
});

describe('log format', () => {
  const run = promisify(execFile);
  const script = resolve(import.meta.dirname, 'fixtures/log-once.ts');

  it('is JSON lines by default', async () => {
    const { stdout } = await run('npx', ['tsx', script], { cwd: root, env: { ...process.env, LOG_PRETTY: 'false' } });
    const line = JSON.parse(stdout.trim());
    expect(line).toMatchObject({ level: 30, msg: 'hello from the logger', consumerId: 'c-1', apiKey: '[redacted]' });
    expect(typeof line.time).toBe('string');
  });

  it('is readable (not JSON) with LOG_PRETTY=true, still redacted', async () => {
    const { stdout } = await run('npx', ['tsx', script], { cwd: root, env: { ...process.env, LOG_PRETTY: 'true', NO_COLOR: '1' } });
    expect(stdout).toContain('hello from the logger');
    expect(() => JSON.parse(stdout.trim())).toThrow();
    expect(stdout).toMatch(/INFO/);
    expect(stdout).not.toContain('SHOULD_NOT_APPEAR');
  });
});
