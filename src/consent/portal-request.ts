import type { Adapter } from '../adapters/manifest.ts';
import type { Services } from '../services.ts';
import type { Consumer, Subscription } from '../store/contract.ts';
import { requestedItems } from './scope.ts';
import { fieldProblem, normaliseField, USER_FIELDS, type UserData } from './user-fields.ts';

/** A checked `GET /provision` request (api-contract section 4). */
export interface PortalRequest {
  consumer: Consumer;
  subscription: Subscription;
  redirectUrl: string | null;
  user: UserData;
  /** The manufacturer of the passed VIN, if a VIN was passed. */
  manufacturer: Adapter | undefined;
  consumerState: string | null;
  consumerCodeChallenge: string | null;
}

export type PortalCheck = { ok: true; request: PortalRequest } | { ok: false; message: string };

/** A query parameter given once, or undefined; a repeated parameter is refused as ambiguous. */
function single(query: Record<string, unknown>, name: string): string | undefined | Error {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') return new Error(`The parameter ${name} may be given only once.`);
  return v;
}

/**
 * Checks the portal entry. Any failure is shown as an error page and never redirected
 * (checklist B1, B3): the redirectUrl must be EXACTLY one of the subscription's whitelist
 * entries (plain string comparison: no normalisation, case folding, decoding or prefix match).
 * Unknown consumer, unknown subscription and another consumer's subscription read the same.
 */
export async function checkPortalRequest(services: Services, query: Record<string, unknown>): Promise<PortalCheck> {
  const names = ['consumerId', 'subscriptionId', 'redirectUrl', 'state', 'code_challenge', 'code_challenge_method', ...USER_FIELDS];
  const p: Record<string, string | undefined> = {};
  for (const n of names) {
    const v = single(query, n);
    if (v instanceof Error) return { ok: false, message: v.message };
    p[n] = v;
  }
  const unknownParty = { ok: false, message: 'The consumer or the subscription is unknown.' } as const;
  if (!p.consumerId || !p.subscriptionId) return { ok: false, message: 'The parameters consumerId and subscriptionId are required.' };
  if (p.consumerId.length > 64 || p.subscriptionId.length > 64) return unknownParty;
  const [consumer, subscription] = await Promise.all([
    services.store.consumers.get(p.consumerId),
    services.store.subscriptions.get(p.subscriptionId),
  ]);
  if (!consumer || !subscription || subscription.consumerId !== consumer.consumerId) return unknownParty;

  const redirectUrl = p.redirectUrl ?? null;
  if (redirectUrl !== null && !subscription.allowedRedirectUrls.some((allowed) => allowed === redirectUrl)) {
    return { ok: false, message: 'The redirect URL is not registered for this subscription.' };
  }

  const user = { vin: null, firstName: null, lastName: null, email: null } as UserData;
  for (const f of USER_FIELDS) {
    const raw = p[f];
    const value = raw === undefined ? null : normaliseField(f, raw);
    if (value === null) continue;
    const problem = fieldProblem(f, value);
    if (problem) return { ok: false, message: `The parameter ${f} is not valid. ${problem}` };
    user[f] = value;
  }
  const manufacturer = user.vin === null ? undefined : services.adapters.forVin(user.vin);
  if (user.vin !== null && !manufacturer) {
    return { ok: false, message: 'No vehicle manufacturer connected to this service makes the vehicle with this VIN.' };
  }
  if (manufacturer && requestedItems(subscription.dataItems, manufacturer).length === 0) {
    return { ok: false, message: `${manufacturer.manifest.name} supplies none of the data items of this subscription.` };
  }

  const consumerState = p.state ?? null;
  if (consumerState !== null && consumerState.length > 512) return { ok: false, message: 'The parameter state is longer than 512 characters.' };

  // Optional PKCE of the consumer (checklist A9): S256 only.
  const challenge = p.code_challenge ?? null;
  if (challenge !== null || p.code_challenge_method !== undefined) {
    if (p.code_challenge_method !== 'S256' || challenge === null || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return { ok: false, message: 'PKCE needs code_challenge (43 characters, base64url) with code_challenge_method=S256.' };
    }
  }
  return {
    ok: true,
    request: { consumer, subscription, redirectUrl, user, manufacturer, consumerState, consumerCodeChallenge: challenge },
  };
}
