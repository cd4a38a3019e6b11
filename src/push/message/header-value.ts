/**
 * Why a string cannot be sent as an HTTP header value (RFC 9110 section 5.5), or null when it
 * can. The webhook's `authorization` is stored once and sent with every push, so a value the
 * HTTP client refuses (a CR or LF, which would also split the header) must be refused at
 * registration: accepted, it would fail every push until the webhook is disabled.
 */
export function headerValueProblem(value: string): string | null {
  if (/[\r\n]/.test(value)) return 'contains a line break (CR or LF)';
  // Visible ASCII, space and tab only: controls are forbidden, and non-ASCII (obs-text) is
  // obsolete and means different bytes to different clients.
  if (/[^\t\x20-\x7e]/.test(value)) return 'contains a control or non-ASCII character';
  if (/^[\t ]|[\t ]$/.test(value)) return 'starts or ends with whitespace';
  return null;
}
