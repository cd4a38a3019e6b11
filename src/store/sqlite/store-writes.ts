/**
 * What this process's SQLite data-point writes cost, counted as they happen: telemetry
 * messages stored (one VIN's points of one insertMany call sharing their provenance), history
 * bucket rows written, latest-value rows written, dictionary rows added (a new item name or
 * message shape, rare) and vehicle shape rows written (a vehicle's set of shapes changed, rare). `npm run bench:ingest` prints writes per message from these.
 */
export const storeWrites = {
  messages: 0,
  historyRows: 0,
  latestRows: 0,
  dictionaryRows: 0,
  shapeRows: 0,
};

export function resetStoreWrites(): void {
  storeWrites.messages = storeWrites.historyRows = storeWrites.latestRows = storeWrites.dictionaryRows = storeWrites.shapeRows = 0;
}
