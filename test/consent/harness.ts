import { freePort } from '../helpers/free-port.ts';
import { addConsumer, createTestApp, type TestApp, type TestAppOptions, type TestConsumer } from '../helpers/app.ts';

/**
 * The whole app LISTENING on a real port, with PUBLIC_URL pointing at it: the consent service
 * reaches the simulated manufacturer's token endpoint over real HTTP, as it would a real one.
 */
export interface LiveApp extends TestApp {
  origin: string;
}

export async function startLiveApp(opts: Omit<TestAppOptions, 'env'> & { env?: Record<string, string> } = {}): Promise<LiveApp> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...opts, env: { PUBLIC_URL: origin, PORT: String(port), HOST: '127.0.0.1', ...opts.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return {
    ...t,
    origin,
    async cleanup() {
      // fetch's pool may hold a connection that never sent a request; Node's server.close()
      // waits for those (they are not "idle"), so drop every connection once the test is over.
      const closing = t.cleanup();
      t.app.server.closeAllConnections();
      await closing;
    },
  };
}

export const VIN = 'V1RTUALV1N0000001';
export const BOREALIS_VIN = 'BRL00000000000001';
export const REDIRECT = 'https://app.example.com/cb';
export const ITEMS = ['crashseverity', 'batteryvoltage', 'sochighlevel'];

export function consumerWith(t: LiveApp, over: Parameters<typeof addConsumer>[1] = {}): Promise<TestConsumer> {
  return addConsumer(t, { dataItems: ITEMS, allowedRedirectUrls: [REDIRECT], name: 'Fleet App GmbH', ...over });
}

export function portalUrl(t: LiveApp, c: TestConsumer, params: Record<string, string | undefined> = {}): string {
  const url = new URL(`${t.origin}/provision`);
  url.searchParams.set('consumerId', c.consumerId);
  url.searchParams.set('subscriptionId', c.subscriptionId);
  for (const [k, v] of Object.entries({ redirectUrl: REDIRECT, vin: VIN, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', ...params })) {
    if (v !== undefined) url.searchParams.set(k, v);
  }
  return url.toString();
}

/** Undoes the escaping of src/http/pages/html.ts. */
export function unescapeHtml(s: string): string {
  return s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');
}

/** name → value of every hidden input of a page. */
export function hiddenFields(page: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) out[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
  return out;
}

/** Values of the checkboxes named `item` that are checked. */
export function checkedItems(page: string): string[] {
  return [...page.matchAll(/<input type="checkbox" name="item" value="([^"]*)" checked>/g)].map((m) => unescapeHtml(m[1]!));
}

export interface Answer {
  status: number;
  location: string | null;
  headers: Headers;
  body: string;
}

/** A minimal browser: one cookie jar, no redirects followed (each hop is asserted). */
export class Browser {
  readonly cookies = new Map<string, string>();

  async request(url: string, init: { method?: string; form?: Record<string, string | string[]> } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: URLSearchParams | undefined;
    if (init.form) {
      body = new URLSearchParams();
      for (const [k, v] of Object.entries(init.form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, body: await res.text() };
  }

  get(url: string): Promise<Answer> {
    return this.request(url);
  }

  post(url: string, form: Record<string, string | string[]>): Promise<Answer> {
    return this.request(url, { method: 'POST', form });
  }
}

export interface ManufacturerStep {
  /** Fields to change on the manufacturer's form (e.g. vin, item, decision). */
  form?: Record<string, string | string[]>;
}

/** The browser flow up to the manufacturer's answer (the callback URL), without following it. */
export async function runToCallback(
  t: LiveApp,
  c: TestConsumer,
  b: Browser,
  opts: { params?: Record<string, string | undefined>; manufacturer?: ManufacturerStep } = {},
): Promise<{ portal: Answer; approve: Answer; authorize: Answer; callbackUrl: string; consentId: string }> {
  const portal = await b.get(portalUrl(t, c, opts.params));
  if (portal.status !== 200) throw new Error(`portal answered ${portal.status}: ${portal.body}`);
  const fields = hiddenFields(portal.body);
  const approve = await b.post(`${t.origin}/provision`, { ...fields, decision: 'approve' });
  if (approve.status !== 303 || !approve.location) throw new Error(`approve answered ${approve.status}`);
  const authorize = await b.get(approve.location);
  if (authorize.status !== 200) throw new Error(`authorize answered ${authorize.status}: ${authorize.body}`);
  const oemFields = hiddenFields(authorize.body);
  const vin = /name="vin" value="([^"]*)"/.exec(authorize.body)?.[1] ?? '';
  const decision = await b.post(new URL('authorize', `${approve.location.split('/authorize')[0]}/`).toString(), {
    ...oemFields,
    username: 'ada',
    password: 'secret',
    vin: unescapeHtml(vin),
    item: checkedItems(authorize.body),
    decision: 'allow',
    ...opts.manufacturer?.form,
  });
  if (decision.status !== 303 || !decision.location) throw new Error(`manufacturer answered ${decision.status}: ${decision.body}`);
  return { portal, approve, authorize, callbackUrl: decision.location, consentId: fields.consentId! };
}

/** The whole browser flow; returns the final answer of the callback (a redirect or a page). */
export async function runFlow(
  t: LiveApp,
  c: TestConsumer,
  b = new Browser(),
  opts: { params?: Record<string, string | undefined>; manufacturer?: ManufacturerStep } = {},
): Promise<{ callback: Answer; consentId: string; callbackUrl: string }> {
  const r = await runToCallback(t, c, b, opts);
  const callback = await b.get(r.callbackUrl);
  return { callback, consentId: r.consentId, callbackUrl: r.callbackUrl };
}

/** Query parameters of a redirect Location. */
export function params(location: string | null): URLSearchParams {
  if (!location) throw new Error('no Location');
  return new URL(location).searchParams;
}
