import type { Adapter } from '../adapters/manifest.ts';
import type { ConsentContext } from './context.ts';
import type { Consumer, Subscription } from '../store/contract.ts';
import type { RedirectTarget } from './redirects.ts';
import { requestedItems } from './scope.ts';
import { fieldProblem, NO_MANUFACTURER, normaliseField, USER_FIELDS, type UserData } from './user-fields.ts';

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

/**
 * A refused entry. `backTo` is set once consumer, subscription and redirectUrl are known good:
 * the refusal then goes back to the consumer (spec 7.2 note 2); null means an error page.
 */
export type PortalCheck = { ok: true; request: PortalRequest } | { ok: false; message: string; backTo: RedirectTarget | null };

/** A query parameter given once, or undefined; a repeated parameter is refused as ambiguous. */
function single(query: Record<string, unknown>, name: string): string | undefined | Error {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') return new Error(`The parameter ${name} may be given only once.`);
  return v;
}

/**
 * Checks the portal entry in two stages. First who is asking and where the answer goes: an
 * unknown consumer or subscription (another consumer's subscription reads the same) or a
 * redirectUrl that is not EXACTLY one of the subscription's whitelist entries (plain string
 * comparison: no normalisation, case folding, decoding or prefix match) is an error page, never
 * a redirect (only to a provisioned URL, exactly; otherwise an error page). Then everything else (the user's details, the VIN's
 * manufacturer, state, PKCE): refused with `backTo`, so the consumer learns of it by the
 * redirect with `invalid_request` (spec 7.2 note 2), its `state` echoed when that was valid.
 */
export async function checkPortalRequest(services: Pick<ConsentContext, 'adapters' | 'store'>, query: Record<string, unknown>): Promise<PortalCheck> {
  const party: Record<string, string | undefined> = {};
  for (const n of ['consumerId', 'subscriptionId', 'redirectUrl']) {
    const v = single(query, n);
    if (v instanceof Error) return { ok: false, message: v.message, backTo: null };
    party[n] = v;
  }
  const unknownParty = { ok: false, message: 'The consumer or the subscription is unknown.', backTo: null } as const;
  if (!party.consumerId || !party.subscriptionId) return { ok: false, message: 'The parameters consumerId and subscriptionId are required.', backTo: null };
  if (party.consumerId.length > 64 || party.subscriptionId.length > 64) return unknownParty;
  const [consumer, subscription] = await Promise.all([
    services.store.consumers.get(party.consumerId),
    services.store.subscriptions.get(party.subscriptionId),
  ]);
  if (!consumer || !subscription || subscription.consumerId !== consumer.consumerId) return unknownParty;

  const redirectUrl = party.redirectUrl ?? null;
  if (redirectUrl !== null && !subscription.allowedRedirectUrls.some((allowed) => allowed === redirectUrl)) {
    return { ok: false, message: 'The redirect URL is not registered for this subscription.', backTo: null };
  }

  // From here on the consumer is told by the redirect; its state is echoed once it is valid.
  const backTo: RedirectTarget = { redirectUrl, consumerState: null };
  const refuse = (message: string): PortalCheck => ({ ok: false, message, backTo });
  const state = single(query, 'state');
  if (state instanceof Error) return refuse(state.message);
  if (state !== undefined && state.length > 512) return refuse('The parameter state is longer than 512 characters.');
  const consumerState = state ?? null;
  backTo.consumerState = consumerState;

  const p: Record<string, string | undefined> = {};
  for (const n of ['code_challenge', 'code_challenge_method', ...USER_FIELDS]) {
    const v = single(query, n);
    if (v instanceof Error) return refuse(v.message);
    p[n] = v;
  }
  const user = { vin: null, firstName: null, lastName: null, email: null } as UserData;
  for (const f of USER_FIELDS) {
    const raw = p[f];
    const value = raw === undefined ? null : normaliseField(f, raw);
    if (value === null) continue;
    const problem = fieldProblem(f, value);
    if (problem) return refuse(`The parameter ${f} is not valid. ${problem}`);
    user[f] = value;
  }
  const manufacturer = user.vin === null ? undefined : services.adapters.forVin(user.vin);
  if (user.vin !== null && !manufacturer) return refuse(NO_MANUFACTURER);
  if (manufacturer && requestedItems(subscription.dataItems, manufacturer).length === 0) {
    return refuse(`${manufacturer.manifest.name} supplies none of the data items of this subscription.`);
  }

  // Optional PKCE of the consumer: S256 only (plain would show the verifier to whoever sees the URL).
  const challenge = p.code_challenge ?? null;
  if (challenge !== null || p.code_challenge_method !== undefined) {
    if (p.code_challenge_method !== 'S256' || challenge === null || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return refuse('PKCE needs code_challenge (43 characters, base64url) with code_challenge_method=S256.');
    }
  }
  return {
    ok: true,
    request: { consumer, subscription, redirectUrl, user, manufacturer, consumerState, consumerCodeChallenge: challenge },
  };
}
