import type { AdapterRegistry } from '../adapters/registry.ts';
import type { RawMessage } from '../domain/raw-message.ts';
import { partitionOf } from '../queues/partitions.ts';
import { carrierVin, findVin } from './harmonize.ts';

/**
 * The harmonize partition of a raw message (HARMONIZE_PARTITIONS): by its vehicle, so one
 * vehicle's messages stay in order in one partition. The vehicle is the VIN its topic names
 * (`vinTopicLevel`), else the first VIN of the manufacturer's prefixes in its text; a message
 * naming none belongs to no vehicle whose order matters and goes by a hash of its text.
 * With one partition nothing is looked at.
 */
export function harmonizePartition(adapters: Pick<AdapterRegistry, 'get'>, partitions: number, msg: RawMessage): number {
  if (partitions <= 1) return 0;
  const adapter = adapters.get(msg.manufacturer);
  const vin = adapter ? (carrierVin(adapter, msg) ?? findVin(adapter, msg)) : null;
  return partitionOf(vin ?? msg.body.slice(0, 256), partitions);
}
