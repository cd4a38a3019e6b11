import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/runtime/free-port.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/runtime/private-redis.ts';
import type { Store } from '../../src/store/contract.ts';
import { borealisRecord, borealisRequest, deployment, POINTS_PER_BOREALIS_RECORD, type Deployment } from './service-env.ts';
import { eventually, startService, waitForHttp, type ServiceProcess } from './service-process.ts';

interface Ready {
  status: string;
  failing: string[];
}

async function ready(url: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Ready };
}

/** Reliability checklist G6c (Redis down at start) and G4 (Redis must not evict). */
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
