import { STYLE_HASH } from './layout.ts';

/**
 * Headers of every consent and manufacturer page, error pages included (no referrer leaks the codes in a URL, no framing for clickjacking):
 * a CSP that allows no script, no third-party resource and no framing; no referrer (codes
 * and states sit in URLs); never cached.
 *
 * `formActions` lists where the page's forms may post AND where the answer may redirect to:
 * browsers apply form-action to the redirects that follow a form submission, so the portal
 * lists the manufacturers' authorization endpoints and the consumer's redirect origin.
 */
export function pageHeaders(formActions: readonly string[] | null): Record<string, string> {
  const directives = [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    "img-src 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...(formActions === null ? [] : [`form-action 'self'${formActions.map((s) => ` ${s}`).join('')}`]),
  ];
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': directives.join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}

/** An origin for a CSP source list, or null for anything that is not a plain http(s) URL. */
export function cspOrigin(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}
