/** Hosts on which a local authorization server may use plain http (as for redirect URLs, RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A path on this service (resolved against PUBLIC_URL), not a URL of another host. */
export const isPath = (value: string): boolean => value.startsWith('/') && !value.startsWith('//');

/**
 * Why an OAuth endpoint (or issuer) value is unusable, or null. A path is resolved against
 * PUBLIC_URL (src/consent/manufacturer-auth.ts); anything else must be an absolute https URL,
 * plain http only on a loopback host for local development.
 */
export function endpointProblem(value: string): string | null {
  const rule = 'must be an https URL or an absolute path on this service ("/oem/<id>/..."; http only on localhost, 127.0.0.1 or [::1])';
  if (/[\s\\\u0000-\u001f\u007f]/.test(value)) return `${rule}, without whitespace or backslashes`;
  if (isPath(value)) return null;
  if (!/^https?:\/\//i.test(value)) return rule;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${rule}; ${JSON.stringify(value)} is not a valid URL`;
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return rule;
  if (url.username || url.password) return `${rule}, without credentials`;
  if (value.includes('#')) return `${rule}, without a fragment`;
  return null;
}
