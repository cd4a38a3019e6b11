import type { Services } from '../services.ts';
import type { DataPoint } from '../store/contract.ts';

/**
 * The hand-over from the harmonization pipeline to push delivery. The pipeline worker calls
 * `enqueue` with EVERY data point of a batch after storing them and before completing its job:
 * a throw makes the pipeline retry the batch, and because a retried batch passes its points
 * again, fan-out must be idempotent (deterministic job ids / transaction ids), never relying on
 * "only new points". OWNED BY THE PUSH WORK, which implements {@link createPushFanoutEnqueuer}.
 */
export interface PushFanoutEnqueuer {
  enqueue(points: DataPoint[]): Promise<void>;
  close(): Promise<void>;
}

export function createPushFanoutEnqueuer(_services: Services): PushFanoutEnqueuer {
  return { enqueue: async () => {}, close: async () => {} };
}
