/**
 * Raw messages that failed decoding, mapping or validation. They are never retried blindly:
 * an operator lists them, fixes the mapping, and reprocesses them (POST
 * /admin/v1/quarantine/reprocess). OWNED BY THE PIPELINE WORK (src/pipeline/).
 */

/** Why a message was quarantined; the stage is in the name. */
export const QUARANTINE_CODES = [
  /** Not UTF-8, not JSON, or not a JSON object. */
  'DECODE_FAILED',
  /** The adapter has no mapping for the message's type. */
  'UNKNOWN_MESSAGE_TYPE',
  /** The mapping threw (including `$error(...)` calls in the mapping). */
  'MAPPING_FAILED',
  /** The mapping ran past its time, depth or size limit (a loop, a runaway recursion). */
  'MAPPING_LIMIT',
  /** The mapping's output is not `{vin, items}` (or a list of them), or holds no item at all. */
  'OUTPUT_INVALID',
  /** The VIN the mapping produced is not a VIN (17 characters: digits and capitals but I, O, Q). */
  'VIN_INVALID',
  /** The VIN is not one of the adapter's VIN prefixes. */
  'VIN_NOT_CLAIMED',
  /** The VIN the mapping produced is not the VIN the MQTT topic names (the manifest's vinTopicLevel). */
  'VIN_MISMATCH',
  /** A harmonized payload does not match its catalog schema, or the item is not in the manifest. */
  'SCHEMA_VIOLATION',
  /** Data stamped more than INGEST_MAX_FUTURE_S after the message was received (a wrong clock). */
  'TIME_IN_FUTURE',
  /**
   * A page of a polled manufacturer's API the poller cannot use: over POLL_MAX_PAGE_BYTES (kept
   * cut), or not JSON, or without its next cursor, POLL_BAD_PAGE_TRIES times in a row.
   */
  'POLL_PAGE_INVALID',
] as const;
export type QuarantineCode = (typeof QUARANTINE_CODES)[number];

export interface QuarantinedMessage {
  /**
   * Derived from the message's content (adapter, type and raw bytes), so a redelivered batch
   * quarantines a message once, not twice.
   */
  id: string;
  manufacturer: string;
  messageType: string;
  code: QuarantineCode;
  /** Human-readable: every schema error, the mapping's error message, ... */
  reason: string;
  /** The mapping's version when it failed in or after mapping; null before. */
  mappingVersion: string | null;
  /** The VIN, when the message could be decoded far enough to know it. */
  vin: string | null;
  /** MQTT topic, when it came over MQTT. */
  topic: string | null;
  /**
   * The raw message as received: UTF-8 text, or base64 when not valid UTF-8. At most
   * QUARANTINE_MAX_RAW_BYTES of it ({@link capRaw}); a longer one is kept cut, and `rawTruncated`.
   */
  raw: string;
  rawEncoding: 'utf8' | 'base64';
  /** The raw message was longer than what is kept (it cannot be reprocessed: its end is gone). */
  rawTruncated: boolean;
  receivedAt: string;
  /** First time it was quarantined. */
  quarantinedAt: string;
  /** Last time it failed (equal to quarantinedAt until a reprocess fails again). */
  lastFailedAt: string;
  /** How many times it failed: 1, plus one per failed reprocess. */
  failures: number;
  /**
   * Only these items of the message failed and were quarantined; its other items were stored
   * (manifest `invalidItems: quarantine-items`). Absent when the whole message was quarantined.
   * `raw` stays the whole message, its reference for a reprocess. A later put sets or clears it.
   */
  failedItems?: string[];
}

export interface QuarantineFilter {
  manufacturer?: string;
  code?: QuarantineCode;
  /** Only the messages whose VIN is this one (a vehicle's page). */
  vin?: string;
  /** Inclusive lower bound on lastFailedAt (ISO). */
  since?: string;
  /** Exclusive upper bound on lastFailedAt (ISO). */
  until?: string;
}

export interface QuarantineListOptions {
  /**
   * Stops the page once its raw messages add up to this many bytes (the first entry is always
   * returned): a page of large messages is paged by size as well as by `limit`.
   */
  maxBytes?: number;
}

export interface QuarantinePage {
  /** Newest failure first. */
  items: QuarantinedMessage[];
  nextCursor: string | null;
}

export interface QuarantineRepo {
  /**
   * Stores a failed message. Idempotent on `id`: when it is there already, the entry's code,
   * reason, mappingVersion and lastFailedAt are updated and `failures` is raised by one, unless
   * `lastFailedAt` is the same as stored (a redelivered batch reporting the same failure).
   */
  put(message: QuarantinedMessage): Promise<void>;
  /** Entries by id; unknown ids are left out. */
  get(ids: string[]): Promise<QuarantinedMessage[]>;
  /** A page (limit 1..1000) newest failure first; the cursor comes from the previous page. */
  list(filter: QuarantineFilter, limit: number, cursor?: string, opts?: QuarantineListOptions): Promise<QuarantinePage>;
  /** Removes entries (a reprocessed message that now succeeds). Returns how many. */
  remove(ids: string[]): Promise<number>;
  /**
   * Retention: removes entries whose lastFailedAt is before the cutoff (ISO), so raw messages,
   * which hold personal data, are not kept forever. Returns how many.
   */
  deleteOlderThan(cutoff: string): Promise<number>;
  /** shared */
  count(): Promise<number>;
  /**
   * shared: GDPR erasure. Removes entries whose VIN is this one, and entries whose VIN is
   * unknown but whose raw text contains it. Returns how many.
   */
  deleteByVin(vin: string): Promise<number>;
}

/**
 * The raw text to keep of a message: at most `maxBytes` of its bytes (UTF-8 text cut at a
 * character boundary; base64 of the first `maxBytes` bytes), and whether it was cut. A hostile
 * or broken sender's megabytes would otherwise fill the store, the Redis of a reprocess and every
 * answer of the quarantine list.
 */
export function capRaw(raw: string, encoding: 'utf8' | 'base64', maxBytes: number): { raw: string; rawTruncated: boolean } {
  if (encoding === 'base64') {
    if (raw.length <= Math.ceil(maxBytes / 3) * 4) return { raw, rawTruncated: false };
    const bytes = Buffer.from(raw, 'base64');
    return bytes.length <= maxBytes ? { raw, rawTruncated: false } : { raw: bytes.subarray(0, maxBytes).toString('base64'), rawTruncated: true };
  }
  // A UTF-8 character is at most 4 bytes: a text of maxBytes/4 characters cannot be over.
  if (raw.length <= maxBytes / 4 || Buffer.byteLength(raw, 'utf8') <= maxBytes) return { raw, rawTruncated: false };
  const head = Buffer.from(raw, 'utf8').subarray(0, maxBytes);
  // A character cut by the limit decodes as U+FFFD at the very end: dropped.
  return { raw: new TextDecoder('utf-8').decode(head).replace(/\uFFFD$/, ''), rawTruncated: true };
}
