import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVATION_QUEUE } from '../../src/queues/activation-job.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { PUSH_QUEUE } from '../../src/queues/push-job.ts';
import { freePort } from '../helpers/free-port.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import type { Store } from '../../src/store/contract.ts';
import { borealisRecord, borealisRequest, deployment, POINTS_PER_BOREALIS_RECORD, type Deployment } from './service-env.ts';
import { eventually, startService, waitForHttp, type ServiceProcess } from './service-process.ts';
import { openTestQueue } from '../helpers/queues.ts';

interface Ready {
  status: string;
  failing: string[];
}

async function ready(url: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Ready };
}

/** Redis down at start (the service waits and recovers), and a Redis that may evict queue keys (not ready). */
describe('processes and their Redis', () => {
  let redis: PrivateRedis | undefined;
  let d: Deployment | undefined;
  let store: Store | undefined;
  const procs: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await store?.close();
    await redis?.stop();
    d?.cleanup();
    redis = d = store = undefined;
  });

  it('start while Redis is down without crashing, report not ready, and work once Redis is up', async () => {
    const redisPort = await freePort();
    d = deployment(`redis://127.0.0.1:${redisPort}`);
    const [apiPort, probePort] = [await freePort(), await freePort()];
    const api = startService('api', { env: d.env({ ROLES: 'api', PORT: String(apiPort) }) });
    const worker = startService('worker', { env: d.env({ ROLES: 'pipeline,push', PROBE_PORT: String(probePort) }) });
    procs.push(api, worker);
    const urls = [`http://127.0.0.1:${apiPort}/ready`, `http://127.0.0.1:${probePort}/ready`];

    for (const [i, url] of urls.entries()) await waitForHttp(url, 503, 30_000, procs[i]);
    for (const url of urls) {
      const r = await ready(url);
      expect(r.body.status).toBe('not ready');
      expect(r.body.failing).toContain('redis');
    }
    // An ingest call meanwhile is refused fast, with Retry-After, and nothing is lost: the
    // manufacturer sends it again later.
    const early = borealisRequest([borealisRecord('BRLSTART000000001', 1_795_600_000)]);
    const refused = await fetch(`http://127.0.0.1:${apiPort}/ingest/v1/borealis`, { method: 'POST', headers: early.headers, body: early.body });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    await new Promise((r) => setTimeout(r, 1000));
    expect(api.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();

    redis = await startPrivateRedis({ port: redisPort });
    for (const [i, url] of urls.entries()) await waitForHttp(url, 200, 30_000, procs[i]);
    const again = borealisRequest([borealisRecord('BRLSTART000000001', 1_795_600_000)]);
    const accepted = await fetch(`http://127.0.0.1:${apiPort}/ingest/v1/borealis`, { method: 'POST', headers: again.headers, body: again.body });
    expect(accepted.status).toBe(202);
    store = await d.store();
    await eventually(async () => (await store!.dataPoints.count()) === POINTS_PER_BOREALIS_RECORD, 'the record stored by the worker', 20_000);
  }, 90_000);

  it('with the api role beside the workers (ROLES=all) open the HTTP port at once, report not ready, and work once Redis is up', async () => {
    const redisPort = await freePort();
    d = deployment(`redis://127.0.0.1:${redisPort}`);
    const apiPort = await freePort();
    // ROLES unset: all of them in one process, as `npm start` runs it.
    const all = startService('all', { env: d.env({ PORT: String(apiPort) }) });
    procs.push(all);
    const base = `http://127.0.0.1:${apiPort}`;

    // Liveness must answer while Redis is down, or an orchestrator restarts the process in a loop.
    await waitForHttp(`${base}/health`, 200, 30_000, all);
    const r = await ready(`${base}/ready`);
    expect(r.status).toBe(503);
    expect(r.body.failing).toContain('redis');
    expect(all.child.exitCode).toBeNull();

    redis = await startPrivateRedis({ port: redisPort });
    await waitForHttp(`${base}/ready`, 200, 30_000, all);
    // Every worker of the process reached Redis on its own: harmonize, activations, push.
    const prefix = d.env().QUEUE_PREFIX!;
    const queues = [HARMONIZE_QUEUE, ACTIVATION_QUEUE, PUSH_QUEUE].map((name) => openTestQueue({ redisUrl: redis!.url, prefix: prefix }, name));
    try {
      for (const q of queues) await eventually(async () => (await q.getWorkersCount()) > 0, `a worker on ${q.name}`, 20_000);
    } finally {
      await Promise.all(queues.map((q) => q.close()));
    }
    const req = borealisRequest([borealisRecord('BRLSTART000000002', 1_795_600_000)]);
    const accepted = await fetch(`${base}/ingest/v1/borealis`, { method: 'POST', headers: req.headers, body: req.body });
    expect(accepted.status).toBe(202);
    store = await d.store();
    await eventually(async () => (await store!.dataPoints.count()) === POINTS_PER_BOREALIS_RECORD, 'the record stored by the worker', 20_000);
  }, 90_000);

  it('without REDIS_URL, notice that their private redis-server died, log it, start it again, and are ready again', async () => {
    d = deployment('redis://unused');
    const apiPort = await freePort();
    const env = d.env({ PORT: String(apiPort) });
    delete env.REDIS_URL;
    const all = startService('all', { env });
    procs.push(all);
    const url = `http://127.0.0.1:${apiPort}/ready`;
    const pidfile = join(d.dataDir, 'redis', 'redis.pid');
    const redisPid = () => Number(readFileSync(pidfile, 'utf8').trim());
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const seen = new Set<number>();
    try {
      await waitForHttp(url, 200, 30_000, all);
      const redisUrl = JSON.parse(all.lines.find((l) => l.includes('started a private redis-server'))!).url as string;
      const clients = async () => {
        const c = new Redis(redisUrl, { maxRetriesPerRequest: 0, retryStrategy: () => null });
        c.on('error', () => {});
        try {
          // Without this connection.
          return ((await c.client('LIST')) as string).trim().split('\n').length - 1;
        } catch {
          return -1; // Redis does not answer
        } finally {
          c.disconnect();
        }
      };
      const connections = await clients();
      const first = redisPid();
      seen.add(first);
      process.kill(first, 'SIGKILL');

      // A new redis-server on the same data dir (it rewrites the pidfile), and the process ready again.
      const second = await eventually(() => {
        const pid = redisPid();
        return pid !== first && alive(pid) ? pid : undefined;
      }, 'a new redis-server', 20_000);
      seen.add(second);
      await waitForHttp(url, 200, 30_000, all);
      const logged = all.lines.filter((l) => l.includes('"level":50') && l.includes('redis-server'));
      expect(logged, all.lines.slice(-20).join('\n')).toHaveLength(1);
      expect(JSON.parse(logged[0]!)).toMatchObject({ signal: 'SIGKILL' });
      // It takes work again.
      const req = borealisRequest([borealisRecord('BRLSTART000000003', 1_795_600_000)]);
      const accepted = await fetch(`http://127.0.0.1:${apiPort}/ingest/v1/borealis`, { method: 'POST', headers: req.headers, body: req.body });
      expect(accepted.status).toBe(202);

      // Every connection of the process is back (a producer closed while still reconnecting
      // fails its close, which would make the exit code 1 for a reason of its own).
      await eventually(async () => (await clients()) >= connections, `${connections} connections back`, 20_000);

      // A stop stops it for good: stopping is no death to recover from.
      const exit = await all.stop();
      expect(exit, all.lines.filter((l) => l.includes('"level":50')).join('\n')).toEqual({ code: 0, signal: null });
      await eventually(() => !alive(second), 'the redis-server gone', 5_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await clients()).toBe(-1);
    } finally {
      for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 90_000);

  it('report not ready while Redis may evict keys, log it as an error, and are ready once it uses noeviction', async () => {
    redis = await startPrivateRedis();
    const admin = new Redis(redis.url);
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    d = deployment(redis.url);
    const probePort = await freePort();
    const worker = startService('worker', { env: d.env({ ROLES: 'pipeline', PROBE_PORT: String(probePort) }) });
    procs.push(worker);
    const url = `http://127.0.0.1:${probePort}/ready`;
    await waitForHttp(url, 503, 30_000, worker);
    expect((await ready(url)).body.failing).toEqual(['redis-policy']);
    const logged = await eventually(() => worker.lines.find((l) => l.includes('"level":50') && l.includes('maxmemory-policy')), 'the error line');
    expect(JSON.parse(logged)).toMatchObject({ policy: 'allkeys-lru', required: 'noeviction' });

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await waitForHttp(url, 200, 10_000, worker);
    admin.disconnect();
  }, 60_000);
});
