/**
 * A payload's JSON text as the history buckets and latest rows hold it. Most catalog payloads
 * repeat their point's own time as `"timestamp":"<ISO>"` (38 of about 85 bytes): that exact text
 * is stored as one byte 0x01 and put back on reading. JSON text never holds a raw 0x01 (it is
 * escaped as \u0001), so the marker cannot be confused with payload content, and a payload whose
 * timestamp differs from its point's time is stored as it is.
 */
const MARK = '\u0001';

// A message's points share their time: the last one's text is kept (toISOString is the main cost).
let lastMs = Number.NaN;
let lastText: string | null = null;
const timestampText = (timestampMs: number): string | null => {
  if (timestampMs === lastMs) return lastText;
  const d = new Date(timestampMs);
  lastMs = timestampMs;
  lastText = Number.isNaN(d.getTime()) ? null : `"timestamp":"${d.toISOString()}"`;
  return lastText;
};

export function packPayload(json: string, timestampMs: number): Buffer {
  const own = timestampText(timestampMs);
  const at = own === null ? -1 : json.indexOf(own);
  if (at < 0) return Buffer.from(json, 'utf8');
  return Buffer.from(json.slice(0, at) + MARK + json.slice(at + own!.length), 'utf8');
}

export function unpackPayload(buf: Buffer, start: number, end: number, timestampMs: number): string {
  const text = buf.toString('utf8', start, end);
  const at = text.indexOf(MARK);
  return at < 0 ? text : text.slice(0, at) + timestampText(timestampMs)! + text.slice(at + 1);
}
