/** Raw messages that failed decoding, mapping or validation. OWNED BY THE PIPELINE WORK (issue 3). */
export interface QuarantinedMessage {
  id: string;
  manufacturer: string;
  reason: string;
  quarantinedAt: string;
}

export interface QuarantineRepo {
  /** shared */
  count(): Promise<number>;
  /** shared: GDPR erasure. Returns how many. */
  deleteByVin(vin: string): Promise<number>;
}
