import type { PipelineContext } from './context.ts';
import type { QuarantinedMessage, QuarantineFilter } from '../store/contract.ts';
import type { Ingest } from './ingest.ts';
import type { RawMessage } from '../domain/raw-message.ts';

/** What to reprocess: these ids, or every entry matching a filter (newest first, up to `limit`). */
export type ReprocessSelection = { ids: string[] } | { filter: QuarantineFilter; limit: number };

export const MAX_REPROCESS = 10_000;

/**
 * Sends quarantined messages through the pipeline again, unchanged, with their original
 * receivedAt (so their points get the same dedup keys as the first time). A message that now
 * harmonizes leaves quarantine once its points are stored; one that fails again stays, with the
 * new reason and its failure count raised. Returns how many were queued.
 */
export async function reprocessQuarantined(services: Pick<PipelineContext, 'clock' | 'store'>, ingest: Ingest, selection: ReprocessSelection): Promise<number> {
  const entries = 'ids' in selection ? await services.store.quarantine.get(selection.ids) : await collect(services, selection.filter, selection.limit);
  const at = services.clock.now().toISOString();
  // A message kept cut has lost its end: it could only fail again, as something it is not.
  const messages = entries.filter((e) => !e.rawTruncated).map((e): RawMessage => ({
    manufacturer: e.manufacturer,
    messageType: e.messageType,
    receivedAt: e.receivedAt,
    ...(e.topic ? { topic: e.topic } : {}),
    body: e.raw,
    encoding: e.rawEncoding,
    reprocess: { quarantineId: e.id, at },
  }));
  if (messages.length > 0) await ingest.enqueueNow(messages);
  return messages.length;
}

async function collect(services: Pick<PipelineContext, 'store'>, filter: QuarantineFilter, limit: number): Promise<QuarantinedMessage[]> {
  const out: QuarantinedMessage[] = [];
  let cursor: string | undefined;
  do {
    const page = await services.store.quarantine.list(filter, Math.min(1000, limit - out.length), cursor);
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && out.length < limit);
  return out;
}
