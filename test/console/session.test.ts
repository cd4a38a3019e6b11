import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { cookiesOf, signIn } from './session.ts';

/** The console's sign-in and session, over the real app (HTTP-level details a browser hides). */
describe('console sign-in and session', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });
  const get = (url: string, cookie?: string) => t!.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

  it('sets an HttpOnly, SameSite=Strict cookie that is Secure and __Host- prefixed when PUBLIC_URL is https', async () => {
    t = await createTestApp({ env: { PUBLIC_URL: 'https://cvd.example.com' } });
    const form = await get('/console/sign-in');
    const token = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const res = await t.app.inject({ method: 'POST', url: '/console/sign-in', headers: { cookie: cookiesOf(form.headers['set-cookie']).join('; ') }, payload: { csrf: token, token: 'test-admin-token' } });
    expect(res.statusCode).toBe(303);
    const session = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-cvd_console='))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Strict/);
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; Path=\//);
    // The value is sealed: neither the CSRF token nor anything readable is in it.
    const page = await get('/console/fleet', session.split(';')[0]);
    const csrf = /<meta name="csrf" content="([^"]+)">/.exec(page.body)![1]!;
    expect(session).not.toContain(csrf);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('refuses a sign-in without the form token, a tampered cookie, and a session past its 8 hours', async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock });
    const bare = await t.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token: 'test-admin-token' } });
    expect(bare.statusCode).toBe(403);
    expect(([] as string[]).concat(bare.headers['set-cookie'] ?? []).some((c) => c.startsWith('cvd_console='))).toBe(false);

    const { cookie } = await signIn(t.app);
    expect((await get('/console/fleet', cookie)).statusCode).toBe(200);
    const [name, value] = cookie.split('=') as [string, string];
    // One character of the sealed body changed: AES-GCM's tag no longer matches.
    const at = value.length - 5;
    const tampered = `${name}=${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
    expect((await get('/console/fleet', tampered)).headers.location).toBe('/console/sign-in');

    // CONSOLE_SESSION_MINUTES' default: 480 minutes.
    clock.set(clock.now().getTime() + 8 * 3_600_000 - 1000);
    expect((await get('/console/fleet', cookie)).statusCode).toBe(200);
    clock.set(clock.now().getTime() + 1001);
    expect((await get('/console/fleet', cookie)).headers.location).toBe('/console/sign-in');
  });

  it('ends a session after CONSOLE_SESSION_MINUTES, cookie and all', async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock, env: { CONSOLE_SESSION_MINUTES: '2' } });
    const form = await get('/console/sign-in');
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const res = await t.app.inject({ method: 'POST', url: '/console/sign-in', headers: { cookie: cookiesOf(form.headers['set-cookie']).join('; ') }, payload: { csrf, token: 'test-admin-token' } });
    const session = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('cvd_console='))!;
    // The browser drops the cookie when the server stops accepting it.
    expect(session).toMatch(/; Max-Age=120(;|$)/);
    const cookie = session.split(';')[0]!;

    clock.set(clock.now().getTime() + 119_000);
    expect((await get('/console/fleet', cookie)).statusCode).toBe(200);
    clock.set(clock.now().getTime() + 1_000);
    expect((await get('/console/fleet', cookie)).headers.location).toBe('/console/sign-in');
    const post = await t.app.inject({ method: 'POST', url: '/console/consumers', headers: { cookie }, payload: { csrf, name: 'too late' } });
    expect(post.statusCode).toBe(401);
  });

  it('counts failed sign-ins toward the failed-authentication throttle shared with the admin API', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_AUTH_FAILURE_MAX: '2' } });
    const attempt = async (token: string) => {
      const form = await get('/console/sign-in');
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!;
      return t!.app.inject({ method: 'POST', url: '/console/sign-in', headers: { cookie: cookiesOf(form.headers['set-cookie']).join('; ') }, payload: { csrf, token } });
    };
    expect((await attempt('wrong-1')).statusCode).toBe(401);
    expect((await attempt('wrong-2')).statusCode).toBe(401);
    expect((await attempt('wrong-3')).statusCode).toBe(429);
    // Locked out: even the right token, here and on the admin API, until the window ends.
    expect((await attempt('test-admin-token')).statusCode).toBe(429);
    const admin = await t.app.inject({ method: 'GET', url: '/admin/v1/consumers', headers: { authorization: 'Bearer test-admin-token' } });
    expect(admin.statusCode).toBe(429);
  });

  it('keeps a signed-out session out, whatever text its cookie is given; another session of the same operator stays in', async () => {
    t = await createTestApp();
    const a = await signIn(t.app);
    const b = await signIn(t.app);
    const out = await t.app.inject({ method: 'POST', url: '/console/sign-out', headers: { cookie: a.cookie }, payload: { csrf: a.csrf } });
    expect(out.statusCode).toBe(303);
    expect((await get('/console/fleet', a.cookie)).headers.location).toBe('/console/sign-in');
    // Once, `.x` appended made another text of the same cookie, which the sign-out (keyed on the text) missed.
    expect((await get('/console/fleet', `${a.cookie}.x`)).headers.location).toBe('/console/sign-in');
    expect((await get('/console/fleet', b.cookie)).statusCode).toBe(200);
  });

  it('counts a cookie that does not decrypt as a failed authentication, toward the throttle shared with the admin API', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_AUTH_FAILURE_MAX: '2' } });
    const good = await signIn(t.app);
    const [name, value] = good.cookie.split('=') as [string, string];
    const forged = (n: number) => `${name}=${value.slice(0, -3)}${'ABC'[n % 3]}${'xyz'[n % 3]}Q`;
    expect((await get('/console/fleet', forged(1))).headers.location).toBe('/console/sign-in');
    expect((await get('/console/fleet', forged(2))).headers.location).toBe('/console/sign-in');
    const third = await get('/console/fleet', forged(3));
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    // Locked out until the window ends: the real session too, and the admin API.
    expect((await get('/console/fleet', good.cookie)).statusCode).toBe(429);
    const json = await t.app.inject({ method: 'POST', url: '/console/playground/run.json', headers: { cookie: good.cookie, 'x-csrf-token': good.csrf }, payload: {} });
    expect(json.statusCode).toBe(429);
    const admin = await t.app.inject({ method: 'GET', url: '/admin/v1/consumers', headers: { authorization: 'Bearer test-admin-token' } });
    expect(admin.statusCode).toBe(429);
  });

  it('does not count a request without a cookie, nor an expired or signed-out one (they open: nothing was guessed)', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_AUTH_FAILURE_MAX: '1' } });
    const a = await signIn(t.app);
    await t.app.inject({ method: 'POST', url: '/console/sign-out', headers: { cookie: a.cookie }, payload: { csrf: a.csrf } });
    for (let i = 0; i < 3; i++) {
      expect((await get('/console/fleet')).headers.location).toBe('/console/sign-in');
      expect((await get('/console/fleet', a.cookie)).headers.location).toBe('/console/sign-in');
    }
    const admin = await t.app.inject({ method: 'GET', url: '/admin/v1/consumers', headers: { authorization: 'Bearer test-admin-token' } });
    expect(admin.statusCode).toBe(200);
  });

  it('is disabled (404) without ADMIN_TOKEN', async () => {
    t = await createTestApp({ env: { ADMIN_TOKEN: '' } });
    expect((await get('/console/sign-in')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token: '' } })).statusCode).toBe(404);
  });
});
