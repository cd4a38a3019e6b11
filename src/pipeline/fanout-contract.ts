import type { DataPoint } from '../store/contract.ts';

/**
 * The hand-over from the harmonization pipeline to push delivery. The pipeline worker calls
 * `enqueue` with EVERY data point of a batch after storing them and before completing its job:
 * a throw makes the pipeline retry the batch, and because a retried batch passes its points
 * again, fan-out must be idempotent (deterministic job ids / transaction ids), never relying on
 * "only new points". The pipeline declares it; push implements it (createPushFanoutEnqueuer,
 * src/push/fanout/fanout.ts) and the composition root wires the two (PipelineContext.openPushFanout).
 */
export interface PushFanoutEnqueuer {
  /**
   * `rerun`: this batch ran before (a retry, or a run after its worker died), so an earlier
   * hand-over of its points may have been interrupted half-way. `only`: these points go to this
   * subscription and no other (a sandbox event, src/virtual/sandbox/).
   */
  enqueue(points: DataPoint[], opts?: { rerun?: boolean; only?: string }): Promise<void>;
  close(): Promise<void>;
}
