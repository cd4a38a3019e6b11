import type { Readable } from 'node:stream';

/** What a receiver's answer shows of its body to the consumer who owns it: the first bytes, as text. */
export const EXCERPT_BYTES = 1024;

/** Media types shown as text; any other body is named, not shown. */
const TEXT_TYPES = /^(text\/|application\/([\w.+-]*\+)?(json|xml|x-www-form-urlencoded)\b)/i;

/**
 * Reads at most `limit` bytes of a body and drops the rest (the socket is destroyed once the
 * limit is reached: a receiver streaming gigabytes costs one read). The excerpt is UTF-8 text
 * without control characters (tabs and line breaks stay) nor bidirectional controls (U+202A to
 * U+202E, U+2066 to U+2069, which would reorder how the text, and what surrounds it, is shown),
 * cut at a character boundary; a body of another media type is only named, and an empty body is null.
 */
export async function readExcerpt(body: Readable, contentType: string | undefined, limit = EXCERPT_BYTES): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } catch {
    // Cut off (the sender's drain deadline) or reset: what came so far is the excerpt.
  }
  body.destroy();
  if (size === 0) return null;
  if (contentType !== undefined && !TEXT_TYPES.test(contentType)) return `(a ${contentType.split(';')[0]!.trim()} body, not shown)`;
  const head = Buffer.concat(chunks).subarray(0, limit);
  // A multi-byte character cut by the limit decodes as U+FFFD at the very end: dropped.
  const text = new TextDecoder('utf-8').decode(head).replace(/\uFFFD$/, '');
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u202A-\u202E\u2066-\u2069]/g, '');
}
