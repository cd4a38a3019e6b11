/** What is kept of an answer over the cap: its start, enough for an operator to see what it was. */
export const OVER_CAP_KEPT_BYTES = 4096;

/** An answer's body read up to a cap: whole, or `over` with only its first bytes. */
export interface CappedBody {
  bytes: Buffer;
  /** The body was longer than the cap (or declared so): `bytes` is its start only. */
  over: boolean;
}

/**
 * Reads a response body as it streams, and abandons it (cancelling the stream, so the socket
 * is not kept reading) once it is longer than `cap`: a hostile or broken API's 50 MB page costs
 * `cap` bytes of memory, not 50 MB. A body declared longer (Content-Length) is not read beyond
 * its first OVER_CAP_KEPT_BYTES.
 */
export async function readCapped(res: Response, cap: number): Promise<CappedBody> {
  const reader = res.body?.getReader();
  if (!reader) return { bytes: Buffer.alloc(0), over: false };
  const declared = Number(res.headers.get('content-length'));
  const stopAt = Number.isFinite(declared) && declared > cap ? OVER_CAP_KEPT_BYTES : cap;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), over: stopAt < cap };
      chunks.push(value);
      size += value.length;
      if (size > stopAt) {
        const head = Buffer.concat(chunks);
        return { bytes: head.subarray(0, Math.min(head.length, OVER_CAP_KEPT_BYTES)), over: true };
      }
    }
  } finally {
    // Past the cap (or on an error) the rest is not wanted; after the end this is a no-op.
    await reader.cancel().catch(() => undefined);
  }
}

/** Discards a body without reading it (an answer whose status says all). */
export async function discardBody(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}
