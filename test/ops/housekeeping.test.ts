import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { deployment, type Deployment } from './service-env.ts';
import { startService, waitForHttp, type ServiceProcess } from './service-process.ts';

/*
 * Housekeeping runs once per interval for the whole installation, not once per process: three
 * worker processes (pipeline and push) with one-second intervals; their /metrics count the
 * runs of history retention, history clustering, the poll reconciler and the push reconciler each did. On the
 * suite's Redis with a prefix of their own: a Redis Cluster in `npm run test:cluster`.
 */
const JOBS = ['history-retention', 'history-clustering', 'poll-reconcile', 'push-reconciler'] as const;

describe('housekeeping with three worker processes', () => {
  let d: Deployment;
  const procs: ServiceProcess[] = [];
  const probes: number[] = [];

  beforeAll(async () => {
    d = deployment(inject('redisUrl'), { HISTORY_PURGE_INTERVAL_S: '1', HISTORY_CLUSTER_INTERVAL_S: '1', POLL_RECONCILE_INTERVAL_S: '1', PUSH_RECONCILE_INTERVAL_S: '1', LOG_LEVEL: 'warn' });
    for (let i = 0; i < 3; i++) {
      const probe = await freePort();
      probes.push(probe);
      procs.push(startService(`worker-${i + 1}`, { env: d.env({ ROLES: 'pipeline,push', PROBE_PORT: String(probe) }) }));
    }
    await Promise.all(probes.map((p, i) => waitForHttp(`http://127.0.0.1:${p}/ready`, 200, 60_000, procs[i])));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    d?.cleanup();
  });

  /** Runs of each job, per process. */
  async function runs(): Promise<Record<string, number[]>> {
    const texts = await Promise.all(probes.map(async (p) => (await fetch(`http://127.0.0.1:${p}/metrics`)).text()));
    return Object.fromEntries(
      JOBS.map((job) => [job, texts.map((t) => Number(new RegExp(`^cvd_periodic_runs_total\\{job="${job}"\\} (\\d+)$`, 'm').exec(t)?.[1] ?? 0))]),
    );
  }

  it('retention, history clustering, the poll reconciler and the push reconciler each run once per interval, among all three', async () => {
    const before = await runs();
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 12_000));
    const after = await runs();
    const seconds = (Date.now() - started) / 1000;
    for (const job of JOBS) {
      const total = after[job]!.reduce((a, b) => a + b, 0) - before[job]!.reduce((a, b) => a + b, 0);
      // Once a second among the three: never more (each process on its own would make it three
      // a second), a second's slack for the edges of the window. At least half of them: a
      // loaded machine delays a run past its slot, and a missed slot is skipped, not caught up.
      expect(total, job).toBeGreaterThanOrEqual(Math.floor(seconds / 2));
      expect(total, job).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    }
  }, 60_000);

  it('every process ran without an error logged', () => {
    for (const p of procs) {
      const errors = p.lines.filter((l) => /"level":(50|60)/.test(l));
      expect(errors, `${p.name}:\n${errors.join('\n')}`).toEqual([]);
    }
  });
});
