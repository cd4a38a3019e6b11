/**
 * Runs a chunked delete until a chunk comes back short: retention and large erasures never hold
 * the write lock for long, and this process's other work (and other processes' writers) get in
 * between chunks. `deleteChunk` deletes at most `limit` rows and says how many it deleted.
 */
export async function deleteInChunks(deleteChunk: (limit: number) => number | Promise<number>, limit: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteChunk(limit);
    total += n;
    if (n < limit) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
