import { Browser, checkedItems, hiddenFields, unescapeHtml } from '../consent/harness.ts';

export interface Consumer {
  consumerId: string;
  apiKey: string;
  subscriptionId: string;
}

/**
 * A user's consent, given the way a browser gives it, through `origin` (the load balancer):
 * the portal page, its form posted with the CSRF token and the session cookie, the simulated
 * manufacturer's login and authorize page, then the callback. Returns the consent id and the
 * confirmation code the consumer's redirect URL receives.
 */
export async function giveConsent(origin: string, c: Consumer, vin: string, redirectUrl: string): Promise<{ consentId: string; code: string }> {
  const b = new Browser();
  const portal = new URL(`${origin}/provision`);
  for (const [k, v] of Object.entries({ consumerId: c.consumerId, subscriptionId: c.subscriptionId, redirectUrl, vin, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' })) {
    portal.searchParams.set(k, v);
  }
  const page = await b.get(portal.toString());
  if (page.status !== 200) throw new Error(`portal answered ${page.status}: ${page.body.slice(0, 300)}`);
  const fields = hiddenFields(page.body);
  const approve = await b.post(`${origin}/provision`, { ...fields, decision: 'approve' });
  if (approve.status !== 303 || !approve.location) throw new Error(`approve answered ${approve.status}: ${approve.body.slice(0, 300)}`);
  const authorize = await b.get(approve.location);
  if (authorize.status !== 200) throw new Error(`manufacturer page answered ${authorize.status}: ${authorize.body.slice(0, 300)}`);
  const decision = await b.post(new URL('authorize', `${approve.location.split('/authorize')[0]}/`).toString(), {
    ...hiddenFields(authorize.body),
    username: 'ada',
    password: 'secret',
    vin: unescapeHtml(/name="vin" value="([^"]*)"/.exec(authorize.body)?.[1] ?? ''),
    item: checkedItems(authorize.body),
    decision: 'allow',
  });
  if (decision.status !== 303 || !decision.location) throw new Error(`manufacturer answered ${decision.status}: ${decision.body.slice(0, 300)}`);
  const callback = await b.get(decision.location);
  if (callback.status !== 303 || !callback.location) throw new Error(`callback answered ${callback.status}: ${callback.body.slice(0, 300)}`);
  const back = new URL(callback.location);
  const code = back.searchParams.get('code');
  if (!code || !callback.location.startsWith(redirectUrl)) throw new Error(`callback went to ${callback.location}`);
  return { consentId: fields.consentId!, code };
}
