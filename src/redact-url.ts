/**
 * Segments that follow one of these in a path stand where a route takes a VIN
 * (/management/v1/vehicles/{vin}, /delivery/v1/history/{vin}/{item},
 * /admin/v1/mappings/.../data-points/{vin}/..., /admin/v1/vehicles/{vin}/data).
 */
const VIN_POSITION_AFTER = new Set(['vehicles', 'history', 'data-points']);
/** Seventeen or more characters of the VIN alphabet in a row, in any case: a VIN with or without junk around it. */
const VIN_LIKE_RUN = /[A-HJ-NPR-Z0-9]{17,}/i;

/** %XX escapes decoded one byte each, never failing on a malformed one: the server decodes the path too. */
const decodeEscapes = (segment: string) => segment.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * The request path as it may appear in logs: no query string (it can carry a consent code,
 * an OAuth state, names or e-mail), no confirmation code, no VIN. A segment in VIN position is
 * redacted whatever it holds (a VIN followed by `%00` or a typo of one is still the vehicle's
 * identifier), and so is any segment that holds a VIN-like run once its escapes are decoded,
 * wherever it stands (an unknown route, junk around the VIN).
 */
export function redactUrl(url: string): string {
  const segments = (url.split('?')[0] ?? '').split('/');
  return segments
    .map((segment, i) => {
      if (i === 0 || segment === '') return segment;
      const after = decodeEscapes(segments[i - 1] ?? '').toLowerCase();
      if (after === 'confirmation') return '[code]';
      if (VIN_POSITION_AFTER.has(after) || VIN_LIKE_RUN.test(decodeEscapes(segment))) return '[vin]';
      return segment;
    })
    .join('/');
}
