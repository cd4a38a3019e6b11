import type { UserData, UserField } from './user-fields.ts';

/*
 * What the consent portal's pages show, as the consent flows decide it. The pages themselves
 * (HTML) belong to the HTTP layer (src/routes/consent/pages/); the flows only fill these views.
 */

/** One catalog item as the portal lists it. */
export interface PortalItem {
  technicalName: string;
  name: string;
  description: string;
}

/** Everything the portal page shows. */
export interface PortalView {
  actionUrl: string;
  consentId: string;
  csrfToken: string;
  /** The sealed process of a visit not stored yet (src/consent/portal-entry.ts); null once stored. */
  entry: string | null;
  serviceName: string;
  consumerName: string;
  subscriptionId: string;
  /** Known once the VIN is known. */
  manufacturerName: string | null;
  items: PortalItem[];
  /** What the consumer passed: shown, not asked for. */
  given: UserData;
  /** What the user typed before (re-shown after an error). */
  entered: Partial<Record<UserField, string>>;
  errors: Partial<Record<UserField | 'form', string>>;
  returnsToConsumer: boolean;
  /** The portal's withdrawal page (GET /withdraw). */
  withdrawUrl: string;
}

export interface WithdrawStartView {
  actionUrl: string;
  csrfToken: string;
  /** What the user typed (re-shown after an error). */
  vin: string;
  error: string | null;
  /** Names of the connected manufacturers. */
  manufacturers: string[];
}

export interface WithdrawableConsent {
  consentId: string;
  consumerName: string;
  /** Names of the data items it covers. */
  items: string[];
  /** ISO time since when it has been active. */
  since: string;
}

export interface WithdrawListView {
  actionUrl: string;
  csrfToken: string;
  vin: string;
  consents: WithdrawableConsent[];
  /** The consumer whose consent was just withdrawn, shown once. */
  withdrawn: string | null;
}
