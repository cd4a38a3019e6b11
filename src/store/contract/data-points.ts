/**
 * A harmonized data point: one catalog item's payload for one VIN at one time.
 * Unique per (vin, item, timestampMs): the dedup key that makes ingestion idempotent.
 */
export interface DataPoint {
  vin: string;
  /** Catalog technicalName. */
  item: string;
  /** The payload's own time (its `timestamp`, or `receivedAt` for events), epoch ms. */
  timestampMs: number;
  /** The catalog payload, valid against the item's schema. */
  payload: Record<string, unknown>;
  /** Provenance: the adapter id, the mapping's version and when the raw message arrived. */
  manufacturer: string;
  mappingVersion: string;
  receivedAt: string;
}

/** A latest payload as the JSON text the store holds (see {@link DataPointRepo.latestPayloadsJson}). */
export interface LatestPayloadJson {
  vin: string;
  item: string;
  /** The payload serialized as JSON (valid JSON text, an object). */
  payloadJson: string;
}

export interface HistoryQuery {
  vin: string;
  item: string;
  /** Inclusive lower bound, epoch ms. */
  fromMs?: number;
  /** Exclusive upper bound, epoch ms. */
  toMs?: number;
  /** Page size (1..1000). */
  limit: number;
  /** Opaque cursor from a previous page. Pages go from newest to oldest. */
  cursor?: string;
}

export interface HistoryPage {
  items: DataPoint[];
  nextCursor: string | null;
}

export interface DataPointRepo {
  /**
   * Stores the points in one write. A point whose (vin, item, timestampMs) exists already is
   * skipped (redelivery), and the latest value per (vin, item) moves only forward in time.
   * Returns the points that were new: the very objects given, in their order.
   */
  insertMany(points: DataPoint[]): Promise<DataPoint[]>;
  /** The latest point per (vin, item) for these VINs and items; absent pairs are omitted. */
  latest(vins: string[], items: string[]): Promise<DataPoint[]>;
  /**
   * Delivery's hot path (added by the delivery work): the same pairs as {@link latest}, only the
   * payload, as JSON text, so the answer is assembled without parsing and re-serializing every
   * payload (a request of 10 VINs x 20 items reads 200 of them).
   */
  latestPayloadsJson(vins: string[], items: string[]): Promise<LatestPayloadJson[]>;
  history(query: HistoryQuery): Promise<HistoryPage>;
  /** Erases every point (history and latest) of the VIN. Returns how many history rows. */
  deleteByVin(vin: string): Promise<number>;
  /** Retention: erases history rows with timestampMs < cutoff (latest values stay). */
  deleteOlderThan(cutoffMs: number): Promise<number>;
  count(): Promise<number>;
  /**
   * Housekeeping, once per interval for the installation: lays out the history written since
   * the last call so that history pages read fewer storage pages. Answers do not change.
   * Returns how many buckets moved; an engine whose layout needs no such step returns 0. Stops
   * between two of its steps once `stopping` answers true (the process is shutting down).
   * Given `spreadOverMs`, paces its steps to take about that long.
   */
  clusterHistory(stopping?: () => boolean, spreadOverMs?: number): Promise<number>;
}
