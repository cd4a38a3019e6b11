import { expect } from 'vitest';
import { startEmbeddedBroker } from '../../src/transports/mqtt/embedded-broker.ts';
import type { Clock } from '../../src/clock.ts';
import { startActivationWorkers } from '../../src/management/start.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import { startPushWorkers } from '../../src/push/start.ts';
import sandboxRoutes from '../../src/virtual/sandbox/index.ts';
import type { Running } from '../../src/running.ts';
import { loadScenarios } from '../../simulator/src/scenario-load.ts';
import { startLiveApp, type LiveApp } from '../consent/harness.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { consumerCall, waitFor } from './live-calls.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/** The thirteen virtual vehicles of the committed scenario files. */
export const FLEET = loadScenarios(new URL('../../simulator/scenarios', import.meta.url).pathname).map((s) => s.vehicle);

export interface FleetService {
  t: LiveApp;
  /** Starts the simulator (after the test has set up what must exist before the start). */
  startFleet(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The running service as deployed for the virtual fleet, over real sockets: HTTP API, embedded
 * MQTT broker, harmonize, activation and push workers, the sandbox; the simulator starts when the test says.
 */
export async function startFleetService(clock: Clock, env: Record<string, string>): Promise<FleetService> {
  const t = await startLiveApp({
    clock,
    // The sandbox, as the composition root mounts it with the simulator on.
    mount: async (app, services) => {
      await app.register(sandboxRoutes, { services });
    },
    env: {
      PUSH_ALLOW_PRIVATE_TARGETS: 'true',
      PUSH_WATCH_CACHE_MS: '0',
      VIRTUAL_ACTIVATION_DELAY_MS: '200',
      SIM_TICK_MS: '100',
      SIM_MAX_CATCHUP_MINUTES: '2',
      PIPELINE_BATCH_MAX_WAIT_MS: '2',
      MQTT_PORT: '0',
      RATE_LIMIT_VEHICLE_MAX: '100000', // the tests poll each vehicle until its data is there
      ...env,
    },
  });
  const broker = await startEmbeddedBroker(t.services, { port: 0 });
  const running: Running[] = [broker, startHarmonizeWorker(pipelineContext(t.services), {}), ...(await startActivationWorkers(t.services)), ...(await startPushWorkers(t.services))];
  return {
    t,
    async startFleet() {
      running.push(...(await t.wing!.simulatorRole!(t.services, broker.url)));
    },
    async close() {
      for (const r of [...running].reverse()) await r.close();
      await t.cleanup();
    },
  };
}

/** Activates the VINs over HTTP and waits until the virtual manufacturer has confirmed them all. */
export async function activate(t: LiveApp, c: TestConsumer, vins: string[]): Promise<void> {
  expect((await consumerCall(t, c, 'PUT', '/management/v1/vehicles', { action: 'activate', vins })).status).toBe(202);
  await waitFor(async () => {
    const list = await consumerCall<{ vin: string; status: string }[]>(t, c, 'GET', '/management/v1/vehicles');
    return vins.every((vin) => list.body.some((v) => v.vin === vin && v.status === 'ACTIVATED'));
  }, `${vins.length} ACTIVATED vehicles`);
}
