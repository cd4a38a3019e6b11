/**
 * Groups raw messages into batches, because one queue job per message would cap the whole
 * pipeline at the queue's own rate (about 7,500 jobs/s on two cores). A batch is sent when it
 * holds `size` messages or `maxBytes` (by `bytesOf`; a larger item goes alone), or its oldest
 * message has waited `maxWaitMs`. `add` resolves only once
 * the batch holding the message is durably queued, and rejects when queuing failed: the MQTT
 * broker acknowledges a publish, and HTTP ingest answers 202, only after that.
 */
export interface Batcher<T> {
  add(item: T): Promise<void>;
  /** Sends the items at once (chunked by `size` and `maxBytes`), bypassing the wait: an HTTP batch already is one. */
  addNow(items: T[]): Promise<void>;
  /** Sends what is waiting and resolves when every send in flight has settled. */
  flush(): Promise<void>;
}

interface Pending<T> {
  items: T[];
  bytes: number;
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
}

export interface BatcherOptions<T> {
  size: number;
  maxWaitMs: number;
  maxBytes: number;
  bytesOf: (item: T) => number;
  send: (items: T[]) => Promise<void>;
}

export function createBatcher<T>(opts: BatcherOptions<T>): Batcher<T> {
  let pending: Pending<T> = { items: [], bytes: 0, waiters: [] };
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  const track = (p: Promise<void>): Promise<void> => {
    const settled = p.then(
      () => {},
      () => {},
    );
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
    return p;
  };

  const sendPending = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = { items: [], bytes: 0, waiters: [] };
    if (batch.items.length === 0) return;
    void track(
      opts.send(batch.items).then(
        () => batch.waiters.forEach((w) => w.resolve()),
        (err: unknown) => batch.waiters.forEach((w) => w.reject(err)),
      ),
    );
  };

  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        const bytes = opts.bytesOf(item);
        if (pending.items.length > 0 && pending.bytes + bytes > opts.maxBytes) sendPending();
        pending.items.push(item);
        pending.bytes += bytes;
        pending.waiters.push({ resolve, reject });
        if (pending.items.length >= opts.size || pending.bytes >= opts.maxBytes) sendPending();
        else if (!timer) timer = setTimeout(sendPending, opts.maxWaitMs);
      });
    },
    async addNow(items) {
      const sends: Promise<void>[] = [];
      let chunk: T[] = [];
      let bytes = 0;
      for (const item of items) {
        const b = opts.bytesOf(item);
        if (chunk.length > 0 && (chunk.length === opts.size || bytes + b > opts.maxBytes)) {
          sends.push(track(opts.send(chunk)));
          chunk = [];
          bytes = 0;
        }
        chunk.push(item);
        bytes += b;
      }
      if (chunk.length > 0) sends.push(track(opts.send(chunk)));
      await Promise.all(sends);
    },
    async flush() {
      sendPending();
      await Promise.all([...inFlight]);
    },
  };
}
