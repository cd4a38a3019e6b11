import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServiceApp } from '../../../src/main/http-app.ts';
import { systemClock } from '../../../src/clock.ts';
import { createAcceptor } from '../../../src/transports/accept.ts';
import { createPollApiClient } from '../../../src/transports/poll/api-client.ts';
import { pollVehicle, type PollDeps } from '../../../src/transports/poll/poll-vehicle.ts';
import { createApiRateLimiter } from '../../../src/transports/poll/rate-limiter.ts';
import type { NextPoll } from '../../../src/transports/poll/schedule.ts';
import { freePort } from '../../helpers/free-port.ts';
import { createTestServices, type TestServices } from '../../helpers/services.ts';
import { Queue } from 'bullmq';
import { HARMONIZE_QUEUE } from '../../../src/queues/harmonize-job.ts';
import { openTestQueue } from '../../helpers/queues.ts';

/*
 * One poll of one vehicle against the simulated Kestrel API served by the real app on a port,
 * with the real ingest queue in the suite's Redis: the cursor moves on only once the page is
 * queued; a queue that refuses the page (a Redis nobody listens on) leaves it where it was.
 */
describe('one poll of a Kestrel vehicle', () => {
  const VIN = 'KESTRELV1N0000002';
  let t: TestServices;
  let app: FastifyInstance;
  let deps: PollDeps;
  let harmonize: Queue;

  beforeAll(async () => {
    const port = await freePort();
    t = await createTestServices({
      clock: systemClock,
      env: { PUBLIC_URL: `http://127.0.0.1:${port}`, SIM_CLOCK: 'fixed:2026-11-25T02:30:00Z', SIM_POLL_BACKFILL_MINUTES: '3', SIM_POLL_ERROR_RATE: '0', SIM_POLL_SLOW_RATE: '0' },
    });
    app = await buildServiceApp(t.services, { wing: t.wing });
    await app.listen({ port, host: '127.0.0.1' });
    const { services } = t;
    const limiter = createApiRateLimiter({ redis: services.redis, clock: services.clock, prefix: services.config.QUEUE_PREFIX, manufacturer: 'kestrel', maxRequestsPerS: 5 });
    const client = createPollApiClient(services, services.adapters.get('kestrel')!, limiter);
    deps = { services, acceptor: createAcceptor(services), client: () => client };
    harmonize = openTestQueue({ redisUrl: services.redisUrl, prefix: services.config.QUEUE_PREFIX }, HARMONIZE_QUEUE);
    const at = new Date().toISOString();
    await services.store.vehicles.upsert({ subscriptionId: 's1', vin: VIN, manufacturer: 'kestrel', status: 'ACTIVATED', createdAt: at, updatedAt: at });
  });
  afterAll(async () => {
    await harmonize?.close();
    await app?.close();
    await t?.cleanup();
  });

  it('keeps the cursor when the ingest queue refuses the page, and moves it on once the page is queued', async () => {
    const job = { manufacturer: 'kestrel', vin: VIN, failures: 0 };
    const deadQueue = createAcceptor({ ...t.services, redisUrl: `redis://127.0.0.1:${await freePort()}` });
    const refused = await pollVehicle({ ...deps, acceptor: deadQueue }, job);
    await deadQueue.close();
    expect(refused).toEqual({ delayMs: 1000, job: { ...job, failures: 1 } });
    expect(await harmonize.getJobCounts('waiting')).toEqual({ waiting: 0 });

    const polled = await pollVehicle(deps, (refused as NextPoll).job);
    // Three minutes of a combustion vehicle: 8 signals each, one page of 24 (pageSize 100), caught up.
    expect(polled).toEqual({ delayMs: 60_000, job: { ...job, cursor: 'k1.29926231.0', failures: 0 } });
    expect(await harmonize.getJobCounts('waiting')).toEqual({ waiting: 1 });
  });

  it('ends the polling of a vehicle no subscription has activated', async () => {
    await t.services.store.vehicles.transition('s1', VIN, ['ACTIVATED'], 'DEACTIVATED', new Date().toISOString());
    expect(await pollVehicle(deps, { manufacturer: 'kestrel', vin: VIN, failures: 0 })).toEqual({ drop: 'no subscription has the vehicle activated' });
  });
});
