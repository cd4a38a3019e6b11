import type { Redis } from 'ioredis';

/** How often the end of the rewrite is looked for. */
const POLL_MS = 50;

/** The `field:value` lines of INFO persistence. */
async function persistence(redis: Redis): Promise<Map<string, string>> {
  const text = await redis.info('persistence');
  return new Map(text.split('\r\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]));
}

async function rewriteRunning(redis: Redis): Promise<boolean> {
  const p = await persistence(redis);
  return p.get('aof_rewrite_in_progress') === '1' || p.get('aof_rewrite_scheduled') === '1';
}

async function waitForRewrite(redis: Redis, deadline: number): Promise<void> {
  while (await rewriteRunning(redis)) {
    if (Date.now() > deadline) throw new Error('the append-only file rewrite did not end in time');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * After an erasure, in the service's own Redis (no REDIS_URL): the append-only file still holds
 * the commands that wrote the erased keys (their names carry the VIN's pseudonym) and the DELs
 * that removed them, until Redis rewrites it. This rewrites it now and waits for the end, so the
 * files in DATA_DIR/redis hold only what is left. A rewrite already running may have started
 * from a snapshot taken before the erasure, so it is waited for and one more is started.
 * Returns false when the server keeps no append-only file. An external Redis is left alone:
 * rewriting a shared server's file is its operator's call (docs/security.md "Erasure").
 */
export async function rewriteAppendOnlyFile(redis: Redis, timeoutMs = 60_000): Promise<boolean> {
  if ((await persistence(redis)).get('aof_enabled') !== '1') return false;
  const deadline = Date.now() + timeoutMs;
  await waitForRewrite(redis, deadline);
  await redis.bgrewriteaof();
  await waitForRewrite(redis, deadline);
  const status = (await persistence(redis)).get('aof_last_bgrewrite_status');
  if (status !== 'ok') throw new Error(`the append-only file rewrite failed (${status ?? 'no status'})`);
  return true;
}
