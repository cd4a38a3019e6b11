import { randomBytes } from 'node:crypto';
import { DelayedError, UnrecoverableError } from 'bullmq';
import type { Adapter } from '../../adapters/manifest.ts';
import type { PollTransport } from './kind.ts';
import { createPollSchedule } from '../../management/poll-schedule.ts';
import { startPeriodic, type PeriodicScheduler } from '../../periodic.ts';
import { queueHome } from '../../queues/open-queue.ts';
import { openWorker } from '../../queues/open-worker.ts';
import { decodePollJob, encodePollJob, POLL_QUEUE } from '../../queues/poll-job.ts';
import type { Running } from '../../running.ts';
import type { IngestContext } from '../deps.ts';
import { createAcceptor } from '../accept.ts';
import { createPollApiClient, type PollApiClient } from './api-client.ts';
import { pollVehicle } from './poll-vehicle.ts';
import { createApiRateLimiter } from './rate-limiter.ts';
import { reconcilePolls } from './reconcile.ts';

/**
 * A poll job is never "failed" for a stall: a worker that died mid-poll leaves nothing half
 * done (the cursor moves only after the page is queued), so the job is simply taken over.
 */
const MAX_STALLS = 1_000_000;

/**
 * The poller (pipeline role): workers of the poll queue, where each vehicle of a polled
 * manufacturer has one job that a worker takes, polls once, and puts back delayed until its next
 * poll. BullMQ hands a job to one worker at a time, across processes, and gives the job of a
 * worker that died to another once its lock (POLL_LOCK_DURATION_MS) has run out. Every
 * POLL_RECONCILE_INTERVAL_S (once for the installation, given the installation-wide scheduler)
 * the jobs of activated vehicles are checked (src/transports/poll/reconcile.ts).
 */
export async function startPollWorkers(
  services: Pick<IngestContext, 'adapters' | 'clock' | 'config' | 'logger' | 'readiness' | 'redis' | 'redisUrl' | 'secrets' | 'store'>,
  opts: { scheduler?: PeriodicScheduler } = {},
): Promise<Running[]> {
  const { config, logger, secrets } = services;
  const polled = services.adapters.list().filter((a) => a.manifest.transport.kind === 'poll');
  // Without a polled manufacturer this role takes nothing in: no workers, no ingest readiness.
  if (polled.length === 0) return [];
  checkPollSecrets(polled);
  const pollerId = randomBytes(4).toString('hex');
  const clients = new Map<string, PollApiClient>();
  for (const a of polled) {
    const t = a.manifest.transport as PollTransport;
    const limiter = createApiRateLimiter({ redis: services.redis, clock: services.clock, prefix: config.QUEUE_PREFIX, manufacturer: a.manifest.id, maxRequestsPerS: t.maxRequestsPerS ?? 5 });
    clients.set(a.manifest.id, createPollApiClient(services, a, limiter, pollerId));
  }
  const acceptor = createAcceptor(services);
  const schedule = createPollSchedule(services);
  const deps = {
    services,
    acceptor,
    client: (m: string) => {
      const c = clients.get(m);
      if (!c) throw new Error(`no API client for ${m}`);
      return c;
    },
  };

  const worker = openWorker(
    POLL_QUEUE,
    queueHome(services),
    async (job, token) => {
      let state;
      try {
        state = decodePollJob(secrets, job.data);
      } catch (err) {
        throw new UnrecoverableError(`cannot open poll job: ${(err as Error).message}`);
      }
      const next = await pollVehicle(deps, state);
      if ('drop' in next) {
        logger.info({ manufacturer: state.manufacturer, vin: secrets.pseudonym(state.vin), reason: next.drop }, 'vehicle polling ended');
        return 'dropped';
      }
      // The cursor is stored only now, after the page was queued (src/transports/poll/poll-vehicle.ts).
      if (next.job !== state) await job.updateData(encodePollJob(secrets, next.job));
      await job.moveToDelayed(Date.now() + next.delayMs, token);
      throw new DelayedError();
    },
    {
      concurrency: config.POLL_CONCURRENCY,
      settings: { lockDuration: config.POLL_LOCK_DURATION_MS, stalledInterval: config.POLL_STALLED_INTERVAL_MS, maxStalledCount: MAX_STALLS },
      onError: (err) => logger.warn({ err: err.message }, 'poll worker error'),
    },
  );
  worker.on('failed', (job, err) => logger.warn({ err: err.message, jobId: job?.id }, 'poll job failed'));
  const reconcile = startPeriodic({
    name: 'poll-reconcile',
    intervalMs: config.POLL_RECONCILE_INTERVAL_S * 1000,
    logger,
    failure: 'poll reconcile failed; trying again at the next interval',
    run: async (closing) => {
      const added = await reconcilePolls(services, schedule, { closing });
      if (added > 0) logger.info({ added }, 'poll jobs added for activated vehicles');
      return added;
    },
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
  });
  logger.info({ pollerId, manufacturers: polled.map((a) => a.manifest.id) }, 'poll workers started');
  return [
    reconcile,
    {
      name: 'poll-worker',
      async close() {
        await worker.close();
        await schedule.close();
        await acceptor.close();
      },
    },
  ];
}

/**
 * A polled API outside this service issued our client secret itself: its variable must be set
 * (unset, only a simulated API of this service could know the secret derived from SECRET_KEY).
 */
export function checkPollSecrets(adapters: readonly Adapter[], env: NodeJS.ProcessEnv = process.env): void {
  for (const a of adapters) {
    const t = a.manifest.transport;
    if (t.kind !== 'poll' || t.tokenEndpoint.startsWith('/')) continue;
    if (t.secretEnv && env[t.secretEnv]) continue;
    throw new Error(
      `${t.secretEnv ?? 'transport.secretEnv'} is not set: it must hold the client secret that ${a.manifest.name} (${a.manifest.id})'s API issued (adapters/${a.manifest.id}/manifest.json transport.secretEnv)`,
    );
  }
}
