import { startExternalSubscriber } from '../transports/mqtt/broker-subscriber.ts';
import { startEmbeddedBroker } from '../transports/mqtt/embedded-broker.ts';
import { subscribes } from '../transports/mqtt/subscriber-identity.ts';
import { startPollWorkers } from '../transports/poll/start.ts';
import { startRetention } from '../gdpr/retention.ts';
import { startHistoryClustering } from '../pipeline/history-clustering.ts';
import { startActivationWorkers } from '../management/start.ts';
import { startPipeline } from '../pipeline/start.ts';
import { startPushWorkers } from '../push/start.ts';
import { createInstallationSchedule } from '../queues/installation-schedule.ts';
import { queueHome } from '../queues/open-queue.ts';
import type { Services } from '../services.ts';
import { gdprContext, ingestContext, managementContext, pipelineContext, pushContext } from './contexts.ts';
import { drainAndClose } from './drain-http.ts';
import { fleetFreshness } from './fleet-freshness.ts';
import { startServiceSampler } from './sampler.ts';
import { startMappingReloads } from './mapping-reloads.ts';
import { buildServiceApp } from './http-app.ts';
import { listenOn } from './port-in-use.ts';
import { startProbeServer } from './probe-server.ts';
import { watchRedisPolicy } from './redis-policy.ts';
import type { Wing } from './wing.ts';
import type { Running } from '../running.ts';
import type { Role } from '../config.ts';

/** The roles that count what the pipeline charts show: ingest, storage, failures, pushes, and the api role's gauges. */
const SAMPLED_ROLES: Role[] = ['api', 'broker', 'pipeline', 'push'];

export interface StartRolesOptions {
  /**
   * Receives each part as soon as it runs, so a shutdown that comes while a later part is
   * still starting (e.g. waiting for Redis) can stop the earlier ones.
   */
  running?: Running[];
  /** Aborted on shutdown: no further part is started. */
  signal?: AbortSignal;
  /** The virtual wing, when this process loaded it (SIMULATOR=on, ./wing.ts): its routes and the simulator role. */
  wing?: Wing | null;
}

/**
 * Starts the roles this process runs (ROLES; "all" by default). The order matters on the way
 * up (the broker before its publishers, the API last, when there is somewhere to queue work)
 * and is reversed on the way down: the API stops taking requests first, the broker last.
 *
 * No part waits for Redis here: a process must open its port (liveness, /ready saying "not
 * ready") while Redis is down, and BullMQ workers connect on their own once it answers.
 *
 * Every role runs alone as well, against a shared Redis, store and (with MQTT_URL) an external
 * MQTT broker; docs/operations.md lists the commands. A process without the api role serves
 * its probes on PROBE_PORT when set.
 */
export async function startRoles(services: Services, opts: StartRolesOptions = {}): Promise<Running[]> {
  const { config, logger } = services;
  const roles = new Set(config.ROLES);
  const running = opts.running ?? [];
  const add = (...parts: Running[]) => {
    running.push(...parts);
    if (opts.signal?.aborted) throw new StartAbortedError();
  };

  add(watchRedisPolicy(services));
  // Every process serves mappings: each reloads them on command, or on a saved file in the try-out.
  add(startMappingReloads(services));
  // Every process that counts something the console's pipeline charts show adds it to Redis;
  // API processes also sample the shared gauges (src/metrics/samples.ts). A simulator-only
  // process counts nothing of it.
  if (SAMPLED_ROLES.some((r) => roles.has(r))) add(startServiceSampler(services, roles.has('api') ? { gauges: services.gauges, freshness: () => fleetFreshness(services) } : {}));
  if (!roles.has('api') && config.PROBE_PORT > 0) add(await listenOn('PROBE_PORT', config.PROBE_PORT, () => startProbeServer(services)));
  const jobRetention = { completedS: config.JOB_RETENTION_COMPLETED_S, failedS: config.JOB_RETENTION_FAILED_S };
  let mqttUrl = config.MQTT_URL;
  if (roles.has('broker') && !config.MQTT_URL) {
    const broker = await listenOn('MQTT_PORT', config.MQTT_PORT, () => startEmbeddedBroker(ingestContext(services)));
    add(broker);
    mqttUrl = broker.url;
    logger.info({ url: broker.url }, 'embedded MQTT broker listening');
  }
  const brokerUrl = mqttUrl ?? `mqtt://127.0.0.1:${config.MQTT_PORT}`;
  if (roles.has('pipeline')) {
    // Housekeeping (retention, the poll reconciler) runs once per interval for the whole
    // installation, in whichever pipeline process is free; closed after the jobs that use it.
    const housekeeping = createInstallationSchedule(queueHome(services), 'pipeline', logger, jobRetention);
    add(housekeeping);
    add(...(await startPipeline(pipelineContext(services))));
    // With an external broker (MQTT_URL) the subscriber feeds the queue (every process of a
    // share group, or the one MQTT_SUBSCRIBER=on); with the embedded one no subscriber is
    // needed: the broker queues each publish itself before acknowledging it.
    if (subscribes(config)) add(await startExternalSubscriber(ingestContext(services), brokerUrl));
    add(...(await startActivationWorkers(managementContext(services))));
    // Polled manufacturers: their vehicles' APIs are polled by the pipeline role's workers.
    add(...(await startPollWorkers(ingestContext(services), { scheduler: housekeeping })));
    // History retention (GDPR storage limitation) belongs to the pipeline role.
    add(startRetention(gdprContext(services), { scheduler: housekeeping }));
    // The history's layout for fast pages too (HISTORY_CLUSTER_INTERVAL_S; 0: never).
    const clustering = startHistoryClustering(services, { scheduler: housekeeping });
    if (clustering) add(clustering);
  }
  if (roles.has('push')) {
    const housekeeping = createInstallationSchedule(queueHome(services), 'push', logger, jobRetention);
    add(housekeeping);
    add(...(await startPushWorkers(pushContext(services), { scheduler: housekeeping })));
  }
  // The simulator is a manufacturer, not the service: it must log in with the virtual
  // manufacturer's credentials, and mqtt.js lets credentials in the URL (MQTT_URL carries the
  // service's own `ingest` user) override the ones it is given.
  const simulator = opts.wing?.simulatorRole;
  if (roles.has('simulator') && simulator) add(...(await simulator(services, brokerUrl)));
  if (roles.has('api')) {
    const app = await buildServiceApp(services, { brokerUrl: () => brokerUrl, wing: opts.wing ?? null });
    await listenOn('PORT', config.PORT, () => app.listen({ port: config.PORT, host: config.HOST }));
    add({ name: 'api', close: () => drainAndClose(app) });
  }
  return running;
}


/** Thrown by {@link startRoles} when its signal was aborted (a shutdown came during the start). */
export class StartAbortedError extends Error {
  constructor() {
    super('start aborted by shutdown');
    this.name = 'StartAbortedError';
  }
}

export interface StopRolesOptions {
  /** Told about each part that failed to stop (the others are still stopped). */
  onError?: (name: string, err: unknown) => void;
  /**
   * Give up on a part that has not stopped after this long. For a shutdown during the start:
   * a part that never reached Redis has nothing in flight, but BullMQ's close waits for the
   * connection it never got.
   */
  capMs?: number;
}

/** Stops in reverse order of start; one part failing to stop does not keep the others running. */
export async function stopRoles(running: Running[], opts: StopRolesOptions = {}): Promise<void> {
  let first: unknown;
  for (const r of [...running].reverse()) {
    try {
      await (opts.capMs === undefined ? r.close() : closeWithin(r, opts.capMs));
    } catch (err) {
      opts.onError?.(r.name, err);
      first ??= err;
    }
  }
  if (first !== undefined) throw first;
}

async function closeWithin(r: Running, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([r.close(), late]);
  } finally {
    clearTimeout(timer);
  }
}
