import { startPushWorkers } from '../../src/push/start.ts';
import type { Running } from '../../src/running.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../push/helpers.ts';
import { Browser, checkedItems, consumerWith, hiddenFields, runFlow, unescapeHtml, type Answer, type LiveApp } from './harness.ts';

/** A consumer of the withdrawal tests: its subscription has the vehicle, and a webhook. */
export interface Party {
  consumer: TestConsumer;
  receiver: Receiver;
  /** The webhook's signing secret. */
  secret: string;
}

/** `notices`: the notice types the webhook opts in to (none by default, as for a consumer). */
export async function party(t: LiveApp, name: string, opts: { notices?: string[]; dataItems?: string[] } = {}): Promise<Party> {
  const consumer = await consumerWith(t, { name, ...(opts.dataItems ? { dataItems: opts.dataItems } : {}) });
  const receiver = await startReceiver();
  const res = await fetch(`${t.origin}/push/v1/webhook`, {
    method: 'PUT',
    headers: { ...consumer.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, ...(opts.notices ? { notices: opts.notices } : {}) }),
  });
  if (res.status !== 200) throw new Error(`webhook registration answered ${res.status}`);
  return { consumer, receiver, secret: ((await res.json()) as { signingSecret: string }).signingSecret };
}

/** The vehicle ACTIVATED in the party's subscription and consented through the real portal flow. */
export async function activeConsent(t: LiveApp, p: Party, vin: string): Promise<string> {
  const at = t.services.clock.now().toISOString();
  await t.services.store.vehicles.upsert({ subscriptionId: p.consumer.subscriptionId, vin, manufacturer: t.services.adapters.forVin(vin)!.manifest.id, status: 'ACTIVATED', createdAt: at, updatedAt: at });
  const { callback, consentId } = await runFlow(t, p.consumer, new Browser(), { params: { vin } });
  if (callback.status !== 303) throw new Error(`consent flow answered ${callback.status}`);
  return consentId;
}

export const startWorkers = (t: LiveApp): Promise<Running[]> => startPushWorkers(t.services);

/**
 * The user at /withdraw: enters `vin`, signs in at the manufacturer (confirming `manufacturerVin`,
 * the same VIN unless a test changes it) and is sent back. Returns the callback URL, not followed.
 */
export async function proveAtManufacturer(
  t: LiveApp,
  b: Browser,
  vin: string,
  manufacturerVin = vin,
  /** The permissions the user leaves ticked at the manufacturer; all of them by default. */
  grant?: string[],
): Promise<{ start: Answer; go: Answer; callbackUrl: string }> {
  const start = await b.get(`${t.origin}/withdraw`);
  if (start.status !== 200) throw new Error(`/withdraw answered ${start.status}`);
  const go = await b.post(`${t.origin}/withdraw`, { ...hiddenFields(start.body), vin });
  if (go.status !== 303 || !go.location) throw new Error(`POST /withdraw answered ${go.status}: ${go.body}`);
  const authorize = await b.get(go.location);
  if (authorize.status !== 200) throw new Error(`authorize answered ${authorize.status}: ${authorize.body}`);
  const decision = await b.post(`${go.location.split('/authorize')[0]}/authorize`, {
    ...hiddenFields(authorize.body),
    username: 'ada',
    password: 'secret',
    vin: manufacturerVin,
    item: grant ?? checkedItems(authorize.body),
    decision: 'allow',
  });
  if (decision.status !== 303 || !decision.location) throw new Error(`manufacturer answered ${decision.status}`);
  return { start, go, callbackUrl: decision.location };
}

/** The consent ids of the Withdraw buttons on a list page, and its CSRF token. */
export function withdrawForms(page: string): { consentIds: string[]; csrf: string } {
  const consentIds = [...page.matchAll(/name="consentId" value="([^"]*)"/g)].map((m) => unescapeHtml(m[1]!));
  return { consentIds, csrf: hiddenFields(page).csrf ?? '' };
}
