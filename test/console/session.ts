import type { FastifyInstance } from 'fastify';

export interface ConsoleSignIn {
  /** The Cookie header of the session. */
  cookie: string;
  csrf: string;
}

const cookiesOf = (setCookie: string | string[] | undefined) =>
  (Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []).map((c) => c.split(';')[0]!).filter((c) => !c.endsWith('='));

/** Signs in to the console as a browser does: the form (with its token cookie), then the post. */
export async function signIn(app: FastifyInstance, token = 'test-admin-token'): Promise<ConsoleSignIn> {
  const form = await app.inject({ method: 'GET', url: '/console/sign-in' });
  const formToken = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!;
  const res = await app.inject({
    method: 'POST',
    url: '/console/sign-in',
    headers: { cookie: cookiesOf(form.headers['set-cookie']).join('; ') },
    payload: { csrf: formToken, token },
  });
  if (res.statusCode !== 303) throw new Error(`sign-in answered ${res.statusCode}`);
  const cookie = cookiesOf(res.headers['set-cookie']).filter((c) => c.startsWith('cvd_console=')).join('; ');
  const page = await app.inject({ method: 'GET', url: '/console/fleet', headers: { cookie } });
  const csrf = /<meta name="csrf" content="([^"]+)">/.exec(page.body)![1]!;
  return { cookie, csrf };
}

export { cookiesOf };
