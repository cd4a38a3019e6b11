/**
 * Read-only reports, shown by the operators' console (src/console/): the fleet as one list across
 * subscriptions and manufacturers, and the consent funnel. Both are paged or aggregated in the
 * engine, so a console view never loads a fleet of 10,000 vehicles into the process.
 */

/** A vehicle the service knows: it has data, or an activation in some subscription. */
export interface FleetVehicle {
  vin: string;
  /** The adapter that sent its data or claims it; null when none does. */
  manufacturer: string | null;
  /** When its newest latest value's raw message arrived (ISO); null without data. */
  lastReceivedAt: string | null;
}

export interface FleetQuery {
  /** Only this adapter's vehicles. */
  manufacturer?: string;
  /** Only VINs starting with this (the search box; VINs are upper case). */
  vinPrefix?: string;
  /** Page size, 1..1000. */
  limit: number;
  /** The last VIN of the previous page (pages go in VIN order). */
  after?: string;
}

export interface FleetPage {
  items: FleetVehicle[];
  /** The `after` of the next page; null on the last page. */
  nextAfter: string | null;
}

/**
 * One manufacturer's consent processes CREATED in a period, by how far they got (a cohort):
 * every one started; some were approved at the portal (consentGivenAt set), some at the
 * manufacturer (activatedAt set); of those, some are active now and some were revoked since.
 */
export interface FunnelRow {
  /** The adapter id; null for processes whose VIN (so manufacturer) was never known. */
  manufacturer: string | null;
  started: number;
  approvedAtPortal: number;
  approvedAtManufacturer: number;
  active: number;
  revoked: number;
}

/** How recently the fleet was seen: its vehicles with data, and how many of them sent some since each instant asked. */
export interface FleetFreshness {
  /** Vehicles with at least one latest value. */
  total: number;
  /** seenSince[i]: vehicles whose newest latest value arrived at or after since[i]. */
  seenSince: number[];
}

export interface ReportsRepo {
  fleet(query: FleetQuery): Promise<FleetPage>;
  /** Counts of vehicles by when their newest data arrived (receivedAt); one aggregate read over the latest values. */
  freshness(since: string[]): Promise<FleetFreshness>;
  /** Processes created in [since, until) (ISO), one row per manufacturer, ordered by manufacturer (null last). */
  consentFunnel(since: string, until: string): Promise<FunnelRow[]>;
}
