import { Queue } from 'bullmq';
import { connect } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import { freePort } from '../helpers/free-port.ts';
import type { Running } from '../../src/running.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { ITEMS_PER_TELEMETRY, telemetryMessages } from './raw-messages.ts';
import { borealisRecord, borealisRequest, deployment, type Deployment } from './service-env.ts';
import { eventually, startService, startWorker, waitForHttp, type ServiceProcess } from './service-process.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/**
 * Graceful shutdown, so a rolling restart loses nothing: on SIGTERM a process stops taking work,
 * finishes the HTTP requests and the jobs it has started, closes its connections and exits 0,
 * within SHUTDOWN_TIMEOUT_MS. Each process is a real OS process started as `npm start` starts it.
 */
describe('graceful shutdown on SIGTERM', () => {
  let d: Deployment | undefined;
  let t: TestServices | undefined;
  let extra: Running | undefined;
  const procs: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await extra?.close();
    await t?.cleanup();
    d?.cleanup();
    d = t = extra = undefined;
  });

  const queueOf = (t: TestServices) =>
    openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);

  /** Queues `count` telemetry messages and waits until a worker runs the first batch of them. */
  const batchRunning = async (t: TestServices, count: number): Promise<Queue> => {
    const ingest = createIngest(t.services);
    await ingest.enqueueNow(telemetryMessages(0, count));
    await ingest.close();
    const queue = queueOf(t);
    await eventually(async () => (await queue.getActiveCount()) === 1, 'the batch to be active', 20_000, 10);
    return queue;
  };

  it('an API process finishes a request still being uploaded, refuses new connections, and exits 0', async () => {
    d = deployment(inject('redisUrl'));
    t = await createTestServices({ env: d.env() });
    const port = await freePort();
    const api = startService('api', { env: d.env({ ROLES: 'api', PORT: String(port) }) });
    procs.push(api);
    await waitForHttp(`http://127.0.0.1:${port}/ready`, 200, 30_000, api);

    // A slow client: headers and half the body now, the rest after the SIGTERM.
    const { body, headers } = borealisRequest([borealisRecord('BRLSHUTD0WN000001', 1_795_600_000)]);
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const head = [`POST /ingest/v1/borealis HTTP/1.1`, `host: 127.0.0.1:${port}`, `content-length: ${Buffer.byteLength(body)}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${head.join('\r\n')}\r\n\r\n${body.slice(0, 40)}`);
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise((r) => setTimeout(r, 300));

    const signalled = Date.now();
    api.signal('SIGTERM');
    await eventually(() => api.lines.some((l) => l.includes('shutting down')), 'the shutdown to begin', 5_000, 20);
    // No new connection is taken any more.
    await eventually(
      () =>
        new Promise<boolean>((resolve) => {
          const probe = connect(port, '127.0.0.1');
          probe.once('connect', () => (probe.destroy(), resolve(false)));
          probe.once('error', () => resolve(true));
        }),
      'the listener to close',
      5_000,
    );
    expect(api.child.exitCode).toBeNull();

    // The rest of the body, on the connection a keep-alive client keeps open: the answer
    // comes, then the server closes the connection (it does not wait for the client to).
    socket.write(body.slice(40));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 202 /);
    const exit = await api.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(t.services.config.SHUTDOWN_TIMEOUT_MS);
    // The batch it accepted is queued.
    const queue = queueOf(t);
    expect(await queue.getWaitingCount()).toBe(1);
    await queue.close();
  }, 60_000);

  it('a worker process finishes its active batch job, exits 0, and leaves no stalled job behind', async () => {
    // 500 full telemetry messages (15,000 points): about ten batch jobs under PIPELINE_BATCH_MAX_BYTES,
    // run one at a time, so the SIGTERM lands while one of them runs and others still wait.
    const COUNT = 500;
    d = deployment(inject('redisUrl'), { PIPELINE_BATCH_SIZE: String(COUNT), PIPELINE_CONCURRENCY: '1', SHUTDOWN_TIMEOUT_MS: '60000' });
    t = await createTestServices({ env: d.env() });
    const worker = await startWorker(d, procs);

    const queue = await batchRunning(t, COUNT);
    worker.signal('SIGTERM');
    const exit = await worker.exited;
    expect(exit).toEqual({ code: 0, signal: null });

    // The job it was running ran to its end in that process; the ones not started wait for the
    // next worker. Nothing active, failed or lost, and every point of the completed jobs stored.
    const counts = await queue.getJobCounts('active', 'waiting', 'completed', 'failed', 'delayed');
    expect([counts.active, counts.failed, counts.delayed], JSON.stringify(counts)).toEqual([0, 0, 0]);
    expect(counts.completed).toBeGreaterThan(0);
    const completed = await queue.getJobs(['completed']);
    const waiting = await queue.getJobs(['waiting']);
    const messagesOf = (jobs: typeof completed) => jobs.reduce((sum, j) => sum + (j.data as { n: number }).n, 0);
    expect(messagesOf(completed) + messagesOf(waiting)).toBe(COUNT);
    expect(completed.map((j) => j.stalledCounter)).toEqual(completed.map(() => 0));
    expect(await t.services.store.dataPoints.count()).toBe(messagesOf(completed) * ITEMS_PER_TELEMETRY);
    expect(await t.services.store.quarantine.count()).toBe(0);

    // A worker that looks for stalled jobs every 100 ms finds none (and runs the rest).
    const stalled: string[] = [];
    const next = startHarmonizeWorker(pipelineContext(t.services), { lockDuration: 1000, stalledInterval: 100 });
    extra = next;
    next.worker.on('stalled', (id) => stalled.push(id));
    await next.worker.waitUntilReady();
    await eventually(async () => (await t!.services.store.dataPoints.count()) === COUNT * ITEMS_PER_TELEMETRY, 'the rest to be stored', 20_000, 50);
    await new Promise((r) => setTimeout(r, 500));
    expect(stalled).toEqual([]);
    await queue.close();
  }, 120_000);

  it('exits 1 once SHUTDOWN_TIMEOUT_MS has passed, even while a job still runs', async () => {
    // Four batch jobs of 2,000 messages (60,000 points each; 2.4 MB, so the byte cap is raised),
    // one at a time: each runs for well over the 100 ms allowed, even with the mappings compiled
    // (500 messages once took 300 ms and no longer do).
    const COUNT = 8_000;
    d = deployment(inject('redisUrl'), { PIPELINE_BATCH_SIZE: String(COUNT / 4), PIPELINE_BATCH_MAX_BYTES: String(4 * 1024 * 1024), PIPELINE_CONCURRENCY: '1', SHUTDOWN_TIMEOUT_MS: '100' });
    t = await createTestServices({ env: d.env() });
    const worker = await startWorker(d, procs);
    const queue = await batchRunning(t, COUNT);
    const signalled = Date.now();
    worker.signal('SIGTERM');
    expect(await worker.exited).toEqual({ code: 1, signal: null });
    // A timer cannot fire while a batch is harmonized (one chain of promises, then one
    // synchronous store write), so the bound holds up to the length of one batch.
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(worker.lines.some((l) => l.includes('graceful shutdown timed out'))).toBe(true);
    // Batches not yet started wait for the next worker; none is lost.
    const counts = await queue.getJobCounts("waiting", "active", "completed", "failed", "delayed");
    expect((counts.waiting ?? 0) + (counts.active ?? 0), JSON.stringify(counts)).toBeGreaterThan(0);
    await queue.close();
  }, 60_000);

  it('a SIGTERM while the process still waits for Redis at start ends it at once with 0', async () => {
    d = deployment(`redis://127.0.0.1:${await freePort()}`);
    const worker = await startWorker(d, procs, { roles: 'pipeline,push', readyStatus: 503 });
    const signalled = Date.now();
    worker.signal('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(5_000);
  }, 60_000);

  it('a SIGTERM to a process of every role (api included) that has never reached Redis ends it at once with 0', async () => {
    d = deployment(`redis://127.0.0.1:${await freePort()}`);
    const port = await freePort();
    const all = startService('all', { env: d.env({ PORT: String(port) }) });
    procs.push(all);
    // Started (its port open) while the workers still wait for Redis.
    await waitForHttp(`http://127.0.0.1:${port}/ready`, 503, 30_000, all);
    const signalled = Date.now();
    all.signal('SIGTERM');
    expect(await all.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(5_000);
  }, 60_000);
});
