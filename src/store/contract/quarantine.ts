/**
 * Raw messages that failed decoding, mapping or validation. They are never retried blindly:
 * an operator lists them, fixes the mapping, and reprocesses them (POST
 * /admin/v1/quarantine/reprocess). OWNED BY THE PIPELINE WORK (issue 3).
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
  /** The raw message exactly as received: UTF-8 text, or base64 when not valid UTF-8. */
  raw: string;
  rawEncoding: 'utf8' | 'base64';
  receivedAt: string;
  /** First time it was quarantined. */
  quarantinedAt: string;
  /** Last time it failed (equal to quarantinedAt until a reprocess fails again). */
  lastFailedAt: string;
  /** How many times it failed: 1, plus one per failed reprocess. */
  failures: number;
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
  list(filter: QuarantineFilter, limit: number, cursor?: string): Promise<QuarantinePage>;
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
