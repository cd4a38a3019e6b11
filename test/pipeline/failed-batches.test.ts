import { bullQueueName } from '../../src/queues/keys.ts';
import { UnrecoverableError, Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { bullConnection } from '../../src/queues/bull-connection.ts';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import { fixture, harmonizeJobCounts, startHarness, waitFor, type Harness } from './harness.ts';
import { pipelineContext } from '../../src/main/contexts.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

const AUTH = { authorization: 'Bearer test-admin-token' };

/**
 * A batch that failed every attempt still holds messages acknowledged to the manufacturer: the
 * operator sees how many there are and sends them through the pipeline again once the cause is
 * fixed (docs/operations.md). Real broker, Redis, worker, store and HTTP app.
 */
describe('admin: failed harmonize batches', () => {
  let h: Harness | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    await h?.stop();
    h = app = undefined;
  });

  it('counts them, and a retry stores them once the cause is gone', async () => {
    h = await startHarness({ worker: false });
    const { services } = h;
    app = await buildApp(services, routeContexts(services));
    const client = await h.connect();
    await client.publishAsync('virtual/v1/V1RTUALV1N0000001/telemetry', fixture('virtual', 'virtual.telemetry.combustion.json'), { qos: 1 });
    await waitFor(async () => (await harmonizeJobCounts(services)).waiting === 1, 5000, 'the batch queued');
    // A worker that fails every batch for good stands in for whatever made it fail.
    const failing = new Worker(bullQueueName(services.config.QUEUE_PREFIX, HARMONIZE_QUEUE, 0), async () => {
      throw new UnrecoverableError('simulated defect');
    }, { connection: bullConnection(services.redisUrl, 'worker'), prefix: services.config.QUEUE_PREFIX });
    await waitFor(async () => (await harmonizeJobCounts(services)).failed === 1, 5000, 'the batch failed');
    await failing.close();

    expect((await app.inject({ method: 'GET', url: '/admin/v1/pipeline/failed-batches', headers: AUTH })).json()).toEqual({ failed: 1 });
    expect((await app.inject({ method: 'GET', url: '/admin/v1/pipeline/failed-batches' })).statusCode).toBe(401);
    h.running.push(startHarmonizeWorker(pipelineContext(services)));
    const retry = await app.inject({ method: 'POST', url: '/admin/v1/pipeline/failed-batches/retry', headers: AUTH });
    expect({ status: retry.statusCode, body: retry.json() }).toEqual({ status: 202, body: { retried: 1 } });
    await waitFor(async () => (await services.store.dataPoints.count()) > 10, 10_000, 'the batch stored');
    expect((await app.inject({ method: 'GET', url: '/admin/v1/pipeline/failed-batches', headers: AUTH })).json()).toEqual({ failed: 0 });
  });
});
