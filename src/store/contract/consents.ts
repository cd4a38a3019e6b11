/**
 * Consent processes. OWNED BY THE CONSENT WORK (issue 5), which completes this contract.
 * Other parts rely only on the members marked "shared".
 */
export interface ConsentRecord {
  consentId: string;
  consumerId: string;
  subscriptionId: string;
  vin: string | null;
  /** Named state of the consent state machine (see src/consent/). */
  state: string;
  stateChangedAt: string;
}

export interface ConsentRepo {
  /** shared: the consent that currently lets the subscription read the VIN's data, or null. */
  findActive(subscriptionId: string, vin: string): Promise<ConsentRecord | null>;
  /** shared: the subset of `vins` that have an active consent in the subscription. */
  activeVins(subscriptionId: string, vins: string[]): Promise<Set<string>>;
  /** shared: GDPR erasure of every consent process of the VIN. Returns how many. */
  deleteByVin(vin: string): Promise<number>;
}
