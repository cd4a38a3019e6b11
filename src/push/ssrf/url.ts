import { isIpLiteral, isPublicAddress } from './ip.ts';
import type { Resolver } from './resolver.ts';

export interface TargetPolicy {
  /** PUSH_ALLOW_PRIVATE_TARGETS: loopback/private addresses and plain http are allowed. */
  allowPrivate: boolean;
  resolve: Resolver;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

/**
 * Registration-time check of a webhook URL, the first layer of the SSRF protection. The WHATWG
 * parser canonicalises the tricks (`http://2130706433/`, `http://0177.0.0.1/`, `http://127.1/`
 * all become 127.0.0.1), then the host is judged: an IP literal directly, a name by every
 * address it resolves to. The delivery re-checks at connect time (see ./agent.ts), because a
 * name may resolve differently later (DNS rebinding).
 */
export async function checkWebhookUrl(raw: string, policy: TargetPolicy): Promise<UrlCheck> {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `the url is longer than ${MAX_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'the url is not a valid absolute URL.' };
  }
  const httpAllowed = policy.allowPrivate && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) {
    const hint = url.protocol === 'http:' ? ` Plain http is allowed only with ${ALLOW_SETTING} (local development).` : '';
    return { ok: false, reason: `the url must use https.${hint}` };
  }
  if (url.username || url.password) {
    return { ok: false, reason: 'the url must not carry credentials; use the authorization field.' };
  }
  if (url.hash) return { ok: false, reason: 'the url must not have a fragment.' };
  const host = url.hostname;
  if (isIpLiteral(host)) {
    if (!policy.allowPrivate && !isPublicAddress(host)) return refused(host);
    return { ok: true, url };
  }
  const name = host.replace(/\.$/, '');
  if (!policy.allowPrivate && (name === 'localhost' || name.endsWith('.localhost'))) return refused(host);
  let addresses: string[];
  try {
    addresses = (await policy.resolve(name)).map((a) => a.address);
  } catch {
    return { ok: false, reason: `the host ${host} does not resolve.` };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${host} does not resolve.` };
  if (!policy.allowPrivate && addresses.some((a) => !isPublicAddress(a))) return refused(host);
  return { ok: true, url };
}

/** The setting that lifts this check, named in every refusal it could lift, so a refused user knows what to change. */
const ALLOW_SETTING = 'PUSH_ALLOW_PRIVATE_TARGETS=true';

const refused = (host: string): UrlCheck => ({
  ok: false,
  reason:
    `the url's host ${host} is on a loopback, private or reserved address, which webhooks may not target ` +
    `(an operator allows them for local development with ${ALLOW_SETTING}; it is on by default in the local try-out).`,
});
