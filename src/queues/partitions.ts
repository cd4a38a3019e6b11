/**
 * The partition of a partitioned queue (HARMONIZE_PARTITIONS, PUSH_PARTITIONS) that a vehicle's
 * work goes to: a hash of its VIN (upper-cased, as a VIN is the same vehicle in any case), so
 * one vehicle's messages stay in one partition, in order, and every process picks the same one.
 * FNV-1a: a few operations per character on the ingest path, and spread evenly enough over a
 * handful of partitions.
 */
export function partitionOf(vin: string, partitions: number): number {
  if (partitions <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < vin.length; i++) {
    let c = vin.charCodeAt(i);
    if (c >= 97 && c <= 122) c -= 32;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return (h >>> 0) % partitions;
}
