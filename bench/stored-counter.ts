import type { DataPointRepo } from '../src/store/contract.ts';

/** What a bench pipeline process stored since it was last asked. */
export interface StoredFigures {
  messages: number;
  items: number;
  /** Per stored message: publish (its sample time) to stored, in ms. */
  latencies: number[];
}

/**
 * Counts what the store takes in a bench pipeline process: the items written and, per message
 * (its one `mileage` point), the time from publish to stored. `take()` hands the figures over
 * and starts afresh.
 */
export function countStored(repo: DataPointRepo): { take(): StoredFigures } {
  let figures: StoredFigures = { messages: 0, items: 0, latencies: [] };
  const insertMany = repo.insertMany.bind(repo);
  repo.insertMany = async (points) => {
    const fresh = await insertMany(points);
    const now = Date.now();
    figures.items += fresh.length;
    for (const p of fresh) {
      if (p.item === 'mileage') {
        figures.messages++;
        figures.latencies.push(now - p.timestampMs);
      }
    }
    return fresh;
  };
  return {
    take() {
      const taken = figures;
      figures = { messages: 0, items: 0, latencies: [] };
      return taken;
    },
  };
}
