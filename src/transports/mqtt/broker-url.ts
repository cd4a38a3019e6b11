/**
 * A broker URL without user and password. mqtt.js lets credentials in the URL override those
 * given as options, so a client that logs in as a manufacturer must not keep the URL's.
 */
export function withoutCredentials(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString().replace(/\/$/, '');
}
