/** Security- and GDPR-relevant events (code replay, erasure receipts, key revocation…). */
export interface AuditEvent {
  type: string;
  at: string;
  /** What it concerns, e.g. a consentId or a pseudonymised VIN. Never a raw secret. */
  subject: string | null;
  details: Record<string, unknown>;
}

export interface AuditRepo {
  record(event: AuditEvent): Promise<void>;
  list(filter?: { type?: string; subject?: string }): Promise<AuditEvent[]>;
}
