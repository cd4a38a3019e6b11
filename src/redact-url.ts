/**
 * The request path as it may appear in logs: no query string (it can carry a consent code,
 * an OAuth state, names or e-mail), no confirmation code, no VIN.
 */
export function redactUrl(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path
    .replace(/(\/confirmation\/)[^/]+/, '$1[code]')
    .replace(/\/[A-HJ-NPR-Z0-9]{17}(?=\/|$)/gi, '/[vin]');
}
