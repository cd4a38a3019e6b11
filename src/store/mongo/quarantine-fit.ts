import { capRaw, type QuarantinedMessage } from '../contract/quarantine.ts';
import { BSON_MAX_BYTES, documentSize } from './bson-size.ts';

/**
 * The most a quarantine entry may take as a document: 16 MiB less room for what a later failure
 * adds (a new reason, failedItems, the counter), so an entry that fits when first put still fits
 * after any number of updates.
 */
export const QUARANTINE_DOC_MAX_BYTES = BSON_MAX_BYTES - 256 * 1024;

/** A failure's reason is kept up to this many bytes (it may quote the message). */
export const QUARANTINE_REASON_MAX_BYTES = 64 * 1024;

/** The bytes of `text` up to `max`, cut at a character boundary. */
function cutText(text: string, max: number): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text;
  return new TextDecoder('utf-8').decode(Buffer.from(text, 'utf8').subarray(0, max)).replace(/\uFFFD$/, '');
}

/** The entry as the engine stores it (its id is the document's _id), measured by the driver's serializer. */
export const quarantineDocSize = (m: QuarantinedMessage): number => {
  const { id, ...rest } = m;
  return documentSize({ _id: id, ...rest });
};

/**
 * The entry as the MongoDB engine keeps it: whole when its document fits under
 * QUARANTINE_DOC_MAX_BYTES (QUARANTINE_MAX_RAW_BYTES allows up to 1 GiB of raw message), else
 * its reason cut to QUARANTINE_REASON_MAX_BYTES and its raw message cut (`rawTruncated`, so it is
 * never reprocessed as if whole) until the document fits. Sizes are the driver's BSON sizes.
 */
export function fitQuarantine(m: QuarantinedMessage): QuarantinedMessage {
  let size = quarantineDocSize(m);
  if (size <= QUARANTINE_DOC_MAX_BYTES) return m;
  let out: QuarantinedMessage = { ...m, reason: cutText(m.reason, QUARANTINE_REASON_MAX_BYTES) };
  size = quarantineDocSize(out);
  for (let round = 0; size > QUARANTINE_DOC_MAX_BYTES && round < 8; round++) {
    const excess = size - QUARANTINE_DOC_MAX_BYTES;
    const rawBytes = out.rawEncoding === 'base64' ? Buffer.from(out.raw, 'base64').length : Buffer.byteLength(out.raw, 'utf8');
    // A base64 text takes 4 characters per 3 bytes kept: cut enough bytes to remove `excess` characters.
    const cut = out.rawEncoding === 'base64' ? Math.ceil((excess * 3) / 4) + 3 : excess;
    const kept = capRaw(out.raw, out.rawEncoding, Math.max(0, rawBytes - cut));
    out = { ...out, raw: kept.raw, rawTruncated: true };
    size = quarantineDocSize(out);
  }
  if (size > QUARANTINE_DOC_MAX_BYTES) throw new RangeError(`a quarantine entry of ${size} bytes cannot be made to fit in one MongoDB document`);
  return out;
}
