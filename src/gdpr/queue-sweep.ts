import type { Job, Queue } from 'bullmq';
import { noQueueErasure, type QueueErasure } from './receipt.ts';
import type { RedisClient } from '../queues/redis.ts';

/** Every state in which no worker holds a job: it waits, or it ended and is kept for a while. */
const IDLE_STATES = ['wait', 'prioritized', 'delayed', 'waiting-children', 'failed', 'completed'] as const;
const CHUNK = 200;
const POLL_MS = 25;

/** What to do with one job of the queue that no worker holds. */
export type Decision =
  | { kind: 'keep' }
  | { kind: 'remove'; messages: number }
  | { kind: 'rewrite'; data: unknown; messages: number }
  | { kind: 'unreadable' };

/** How one queue's jobs relate to the VIN being erased. */
export interface JobInspector {
  decide(job: Job): Promise<Decision>;
  /** Whether an active job concerns the VIN, so the erasure must wait for it to finish. */
  concerns(job: Job): Promise<boolean>;
}

/**
 * Applies the inspector's decisions to every job of the queue, then waits (at most
 * `activeWaitMs`) for the jobs of the VIN that a worker holds, and sweeps those again once
 * released: a batch that failed and went back to waiting still carries the VIN. A job a worker
 * takes while we rewrite it is caught the same way (we look at its state after the rewrite).
 */
export async function sweepQueue(queue: Queue, inspector: JobInspector, activeWaitMs: number, opts: { onRemoved?: (jobId: string) => void } = {}): Promise<QueueErasure> {
  const out = noQueueErasure();
  const held = new Set<string>();
  const idle = [...new Set(await queue.getRanges([...IDLE_STATES], 0, -1))];
  const active = [...new Set(await queue.getRanges(['active'], 0, -1))];

  const apply = async (ids: string[]) => {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const jobs = (await Promise.all(ids.slice(i, i + CHUNK).map((id) => queue.getJob(id)))).filter(
        (j): j is Job => j?.id !== undefined,
      );
      const decisions = await Promise.all(jobs.map((j) => inspector.decide(j)));
      // Listed as idle; one that a worker took since is caught by applyDecision (locked, or
      // active after the rewrite).
      for (const [k, job] of jobs.entries()) await applyDecision(queue, job, decisions[k]!, out, held, opts.onRemoved);
    }
  };

  await apply(idle);
  for (let i = 0; i < active.length; i += CHUNK) {
    const jobs = await Promise.all(active.slice(i, i + CHUNK).map((id) => queue.getJob(id)));
    for (const job of jobs) if (job?.id !== undefined && (await inspector.concerns(job))) held.add(job.id);
  }
  if (held.size === 0) return out;

  const released = await waitUntilReleased(queue, [...held], activeWaitMs);
  out.stillActive = held.size - released.length;
  held.clear();
  await apply(released);
  // Taken again by a worker between the two passes: counted, not waited for twice.
  out.stillActive += held.size;
  return out;
}

async function applyDecision(queue: Queue, job: Job, decision: Decision, out: QueueErasure, held: Set<string>, onRemoved?: (jobId: string) => void): Promise<void> {
  switch (decision.kind) {
    case 'keep':
      return;
    case 'unreadable':
      out.unreadable++;
      return;
    case 'remove':
      try {
        await job.remove();
        onRemoved?.(job.id!);
        out.removed++;
        out.messages += decision.messages;
      } catch (err) {
        // Locked: a worker took it since we listed it; wait for it like any active job.
        if (/locked/i.test((err as Error).message)) held.add(job.id!);
        else throw err;
      }
      return;
    case 'rewrite':
      try {
        await job.updateData(decision.data);
      } catch (err) {
        // Removed meanwhile (retention, or a worker completed it with removeOnComplete): gone is fine.
        if ((await queue.getJob(job.id!)) === undefined) return;
        throw err;
      }
      out.rewritten++;
      out.messages += decision.messages;
      // A worker that took it just before the rewrite holds the old data: wait for it.
      if ((await job.getState()) === 'active') held.add(job.id!);
      return;
  }
}

/** Polls until these jobs are no longer active; returns those released in time. */
async function waitUntilReleased(queue: Queue, ids: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let pending = ids;
  const released: string[] = [];
  for (;;) {
    const states = await Promise.all(pending.map((id) => queue.getJobState(id)));
    const still: string[] = [];
    pending.forEach((id, i) => (states[i] === 'active' ? still.push(id) : released.push(id)));
    pending = still;
    if (pending.length === 0 || Date.now() >= deadline) return released;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const EVENTS_PAGE = 1000;

/**
 * Removes, from the queue's events stream (BullMQ keeps its last 10,000 events: added, waiting,
 * completed, removed ...), the events of these jobs. Needed where a job's id is derived from the
 * VIN (a poll job's is the VIN's pseudonym): the events would otherwise still name it after the
 * job is gone. Returns how many events went.
 */
export async function forgetJobEvents(redis: RedisClient, queue: Pick<Queue, 'keys'>, jobIds: ReadonlySet<string>): Promise<number> {
  if (jobIds.size === 0) return 0;
  const key = queue.keys.events!;
  let removed = 0;
  let start = '-';
  for (;;) {
    const entries = await redis.xrange(key, start, '+', 'COUNT', EVENTS_PAGE);
    const mine = entries.filter(([, fields]) => fields.some((v, i) => i % 2 === 1 && fields[i - 1] === 'jobId' && jobIds.has(v))).map(([id]) => id);
    if (mine.length > 0) removed += await redis.xdel(key, ...mine);
    if (entries.length < EVENTS_PAGE) return removed;
    start = `(${entries[entries.length - 1]![0]}`;
  }
}
