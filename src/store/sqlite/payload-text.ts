import { isoText } from '../../domain/iso-text.ts';

/**
 * A payload's JSON text as the history buckets and latest rows hold it. Most catalog payloads
 * repeat their point's own time as `"timestamp":"<ISO>"` (38 of about 85 bytes): that exact text
 * is stored as one character U+0001 and put back on reading. JSON text never holds a raw U+0001
 * (it is escaped as \u0001), so the marker cannot be confused with payload content, and a
 * payload whose timestamp differs from its point's time is stored as it is.
 */
const MARK = '\u0001';

// A message's points share their time: the last one's text is kept.
let lastMs = Number.NaN;
let lastText: string | null = null;
const timestampText = (timestampMs: number): string | null => {
  if (timestampMs === lastMs) return lastText;
  const iso = isoText(timestampMs);
  lastMs = timestampMs;
  lastText = iso === null ? null : `"timestamp":"${iso}"`;
  return lastText;
};

export function packPayload(json: string, timestampMs: number): string {
  const own = timestampText(timestampMs);
  const at = own === null ? -1 : json.indexOf(own);
  return at < 0 ? json : json.slice(0, at) + MARK + json.slice(at + own!.length);
}

export function unpackPayload(packed: string, timestampMs: number): string {
  const at = packed.indexOf(MARK);
  return at < 0 ? packed : packed.slice(0, at) + timestampText(timestampMs)! + packed.slice(at + 1);
}

/** The same from packed UTF-8 bytes (latest rows, and bucket bodies of schema version 2). */
export const unpackPayloadBytes = (buf: Buffer, start: number, end: number, timestampMs: number): string =>
  unpackPayload(buf.toString('utf8', start, end), timestampMs);
