import type Database from 'better-sqlite3';
import { BUCKET_COLUMNS } from './history-write.ts';
import { RECENT, forLayer } from './bucket-indexes.ts';

/**
 * How many buckets one clustering transaction moves: about 20 ms of the write lock and of the
 * event loop (about 30 µs a bucket on a 2-core machine), so ingestion gets in between. Smaller
 * transactions write more: a page that holds buckets of several transactions is written once
 * per transaction (100 a transaction wrote about 17 KB per bucket, 500 about 9 KB).
 */
const MOVE_CHUNK = 500;
/**
 * After each transaction the run pauses for at least this many times as long as the transaction
 * took: it takes a quarter of the time at most, so ingestion keeps its latency while a run
 * lasts. Given a time to spread over, it pauses longer, to move evenly over that time.
 */
const PAUSE_FACTOR = 3;
/** The longest pause to keep to a spread: a process shutting down waits for the run's pause. */
const MAX_SPREAD_PAUSE_MS = 1000;

type WhenWritable = <T>(write: () => T) => Promise<T>;

const statements = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

function prepare(db: Database.Database) {
  return {
    lastId: db.prepare<[], number | null>('SELECT max(id) FROM history_buckets').pluck(),
    // What the run has to move: the recent layer's entries (its index alone).
    count: db.prepare<[number], number>(forLayer('SELECT count(*) FROM history_buckets INDEXED BY {index} WHERE {layer} AND id <= +?', RECENT)).pluck(),
    // The first unclustered buckets in (vin, shape, time) order, of those there at the start
    // (`+?`: planned once, ./history-page.ts).
    next: db
      .prepare<[number, number], number>(
        forLayer('SELECT id FROM history_buckets INDEXED BY {index} WHERE {layer} AND id <= +? ORDER BY vin, shape_id, max_ts LIMIT +?', RECENT),
      )
      .pluck(),
    // Appended at the table's end in that order: a vehicle's buckets of the period fill a few
    // neighbouring pages instead of one page each among the rest of the fleet's. The list is
    // already in that order, and a CROSS JOIN keeps its left side as the outer loop, so rows go
    // in as listed; an ORDER BY would sort the whole rows again (a fifth of a move's cost).
    copy: db.prepare<[string]>(
      `INSERT INTO history_buckets (${BUCKET_COLUMNS}, clustered)
       SELECT ${BUCKET_COLUMNS}, 1 FROM json_each(?) AS listed CROSS JOIN history_buckets ON history_buckets.id = listed.value`,
    ),
    remove: db.prepare<[string]>('DELETE FROM history_buckets WHERE id IN (SELECT value FROM json_each(?))'),
  };
}

/**
 * Moves the buckets written since the last run next to their vehicle's earlier buckets and
 * returns how many moved. A history page of a dense item reads one bucket per point; written
 * in arrival order, those buckets lie on as many storage pages, interleaved with the rest of
 * the fleet's messages. Rewritten in (VIN, shape, time) order, a vehicle's buckets of one
 * period share pages, and a page reads far fewer. The buckets themselves do not change (same
 * contents, same answers); history pages read in one transaction, so a move is never seen half
 * done. MOVE_CHUNK buckets per transaction, paced (PAUSE_FACTOR), so other writers get in
 * between; buckets written during the run, and those left when `stopping` says so, wait for the
 * next.
 *
 * With `spreadOverMs` (the pipeline gives most of the interval between two runs) the moves are
 * paced to take about that long: a minute of ingestion at 5,000 messages/s is several seconds
 * of moves, which at a quarter of the time took a quarter of a core for half the minute, when
 * ingestion had that much less; spread, they take a steady sixth of a core or less.
 */
export async function clusterHistory(db: Database.Database, whenWritable: WhenWritable, stopping: () => boolean = () => false, spreadOverMs = 0): Promise<number> {
  let st = statements.get(db);
  if (!st) statements.set(db, (st = prepare(db)));
  const s = st;
  const last = s.lastId.get() ?? 0;
  const toMove = spreadOverMs > 0 ? s.count.get(last) ?? 0 : 0;
  const runStarted = performance.now();
  const move = db.transaction((): number => {
    const ids = JSON.stringify(s.next.all(last, MOVE_CHUNK));
    const copied = s.copy.run(ids).changes;
    const removed = s.remove.run(ids).changes;
    // Both statements see the same rows under the write lock; anything else is a bug.
    if (copied !== removed) throw new Error(`history clustering copied ${copied} buckets but removed ${removed}`);
    return copied;
  });
  let moved = 0;
  for (;;) {
    const started = performance.now();
    const n = await whenWritable(() => move.immediate());
    moved += n;
    if (n < MOVE_CHUNK || stopping()) return moved;
    const now = performance.now();
    // On schedule, the share of the buckets moved is the share of spreadOverMs gone by.
    const due = toMove > 0 ? runStarted + (moved / toMove) * spreadOverMs : 0;
    await new Promise((resolve) => setTimeout(resolve, Math.max((now - started) * PAUSE_FACTOR, Math.min(MAX_SPREAD_PAUSE_MS, due - now))));
  }
}
