import { apiErrors } from '../errors.ts';

/** Loopback hosts a native app may use with plain http (RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_URL_LENGTH = 2048;
export const MAX_REDIRECT_URLS = 50;

/**
 * Why a redirect URL may not be whitelisted, or null when it may. RFC 9700 §2.6 and
 * RFC 6749 §3.1.2: absolute, https (http only on loopback), no fragment; we also refuse
 * credentials in the URL and anything a browser would silently rewrite (surrounding
 * whitespace, control characters, a scheme without `//`), because the consent portal compares
 * the URL it is given with these entries character for character.
 */
export function redirectUrlProblem(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_URL_LENGTH) return `must be 1 to ${MAX_URL_LENGTH} characters`;
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) return 'must not contain whitespace or control characters';
  if (!/^https?:\/\//i.test(raw)) return 'must be an absolute https URL';
  if (raw.includes('#')) return 'must not contain a fragment';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])';
  }
  return null;
}

/** The whitelist as given (exact strings, duplicates dropped), or a 400 naming the bad entries. */
export function checkRedirectUrls(urls: unknown): string[] {
  if (urls === undefined) return [];
  if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string')) {
    throw apiErrors.badRequest('allowedRedirectUrls must be an array of strings.');
  }
  if (urls.length > MAX_REDIRECT_URLS) throw apiErrors.badRequest(`at most ${MAX_REDIRECT_URLS} allowedRedirectUrls.`);
  const problems: string[] = [];
  for (const u of urls as string[]) {
    const problem = redirectUrlProblem(u);
    if (problem) problems.push(`${JSON.stringify(u.slice(0, 200))} ${problem}`);
  }
  if (problems.length > 0) throw apiErrors.badRequest(`invalid allowedRedirectUrls: ${problems.join('; ')}.`);
  return [...new Set(urls as string[])];
}
