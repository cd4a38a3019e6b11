/**
 * What a GDPR erasure did, in every store that held the VIN's data: the counts an operator
 * hands back to the data subject, and what could not be checked.
 */
export interface ErasureReceipt {
  vin: string;
  /** Set when only one subscription's data was erased (no legal basis left for it). */
  subscriptionId?: string;
  erasedAt: string;
  erased: {
    /** History rows (the latest values go with them). VIN-wide erasure only. */
    dataPoints: number;
    /** Quarantined raw messages. VIN-wide erasure only. */
    quarantined: number;
    consents: number;
    /** Push deliveries (rows with the pushed payload). */
    deliveries: number;
    /** Vehicle activations (one per subscription). */
    activations: number;
    /** Queued jobs removed whole: pipeline batches holding only this VIN, push and activation jobs. */
    queuedJobs: number;
    /** Pipeline batches that also held other VINs' messages: rewritten without this VIN's. */
    rewrittenJobs: number;
    /** Raw messages taken out of queued pipeline batches (removed or rewritten). */
    queuedMessages: number;
    /** Redis keys naming the VIN or its pseudonym: rate-limit counters, push throttles, sealed OEM codes and withdrawal state. */
    cacheKeys: number;
  };
  /** What the erasure could not reach; all zero on a complete erasure. */
  notErased: {
    /** Pipeline batches and activation jobs that cannot be opened with this service's key (foreign or corrupted). */
    unreadableJobs: number;
    /** Jobs of the VIN still held by a worker when the erasure stopped waiting for them. */
    activeJobs: number;
  };
}

/** Counts one queue's pass contributes to a receipt. */
export interface QueueErasure {
  removed: number;
  rewritten: number;
  messages: number;
  unreadable: number;
  stillActive: number;
}

export const noQueueErasure = (): QueueErasure => ({ removed: 0, rewritten: 0, messages: 0, unreadable: 0, stillActive: 0 });

export function addQueueErasure(a: QueueErasure, b: QueueErasure): QueueErasure {
  return {
    removed: a.removed + b.removed,
    rewritten: a.rewritten + b.rewritten,
    messages: a.messages + b.messages,
    unreadable: a.unreadable + b.unreadable,
    stillActive: a.stillActive + b.stillActive,
  };
}
