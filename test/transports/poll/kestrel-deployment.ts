import type { LoggedRequest } from '../../../src/virtual/kestrel/request-log.ts';
import type { Consumer } from '../../ops/consent-over-http.ts';
import type { ServiceProcess } from '../../ops/service-process.ts';

export const ADMIN = 'ops-admin-token-0001';
export const KESTREL_VINS = ['KESTRELV1N0000001', 'KESTRELV1N0000002', 'KESTRELV1N0000003', 'KESTRELV1N0000004'];
export const CRASHING_VIN = 'KESTRELV1N0000004';

/** A call to the service as a consumer (or, without one, as the operator with the admin token). */
export async function call<T = Record<string, unknown>>(origin: string, c: Consumer | null, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = c ? { 'x-api-key': c.apiKey, 'x-subscription-id': c.subscriptionId } : { authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** What the simulated Kestrel API logged, oldest first (GET /admin/v1/oem/kestrel/api-requests). */
export async function apiLog(origin: string): Promise<LoggedRequest[]> {
  const r = await call<LoggedRequest[]>(origin, null, 'GET', '/admin/v1/oem/kestrel/api-requests');
  if (r.status !== 200) throw new Error(`api-requests answered ${r.status}`);
  return r.body;
}

/** The poller id a worker process logged at start ("poll workers started"): the prefix of its request ids. */
export function pollerIdOf(p: ServiceProcess): string | undefined {
  for (const l of p.lines) {
    const m = /"pollerId":"([0-9a-f]+)".*poll workers started/.exec(l);
    if (m) return m[1];
  }
  return undefined;
}

/** Whether the vehicle's last answered page left it caught up at `cursor` (a page of no signals from it). */
export function caughtUp(log: LoggedRequest[], vin: string): string | undefined {
  const answered = log.filter((e) => e.vin === vin && e.phase === 'answered' && e.status === 200);
  const last = answered.at(-1);
  return last && last.signals === 0 && last.cursor === last.nextCursor ? last.nextCursor : undefined;
}

/** The grid minutes (ISO instants) of the simulated API's window: `minutes` minutes up to `end`. */
export function windowMinutes(end: Date, minutes: number): string[] {
  return Array.from({ length: minutes }, (_, i) => new Date(end.getTime() - (minutes - 1 - i) * 60_000).toISOString());
}
