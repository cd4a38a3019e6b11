import type { Running } from '../../src/running.ts';
import type { WingContext } from '../../src/http/wing-contract.ts';
import { BoundedPublisher, PublisherClosedError } from './bounded-publisher.ts';
import { buildFleet } from './fleet.ts';
import { PublishRounds } from './publish-round.ts';
import { loadScenarios } from './scenario-load.ts';
import { createSimClock } from './sim-clock.ts';
import type { SimSettings } from './settings.ts';
import { connectAsVirtual } from './virtual-mqtt.ts';

/** What the simulator needs from the services: no store, no Redis, so it also runs alone. */
export type SimulatorDeps = Pick<WingContext, 'config' | 'logger' | 'clock' | 'paths' | 'adapters'>;

/**
 * The simulator role: the virtual manufacturer's vehicles (every scenario file plus
 * SIM_FLEET_SIZE generated ones) publishing raw telemetry and events over MQTT, one round every
 * SIM_TICK_MS. Connects with the virtual manufacturer's broker credentials. A broken scenario
 * file stops the start (ScenarioError names it).
 */
export async function startSimulator(services: SimulatorDeps, sim: SimSettings, mqttUrl: string): Promise<Running[]> {
  const { logger } = services;
  const scenarios = loadScenarios(services.paths.scenarios).map((s) => s.vehicle);
  const fleet = buildFleet(scenarios, sim.SIM_FLEET_SIZE);
  const vehicles = [...scenarios, ...fleet];
  const client = connectAsVirtual(services, mqttUrl, 'simulator');
  client.on('error', (err) => logger.warn({ err: err.message }, 'simulator MQTT client error'));
  let failures = 0;
  const publisher = new BoundedPublisher(client, {
    maxInflight: sim.SIM_MAX_INFLIGHT,
    ratePerSecond: sim.SIM_FLEET_RATE,
    onError: (err) => {
      // One line per hundred failures: a broker outage must not flood the log.
      if (failures++ % 100 === 0) logger.warn({ err: err.message, failures }, 'simulator publish failed');
    },
  });
  const rounds = new PublishRounds(
    vehicles,
    publisher,
    createSimClock(sim.SIM_CLOCK, services.clock),
    { utcOffsetMinutes: sim.SIM_UTC_OFFSET_MINUTES },
    sim.SIM_MAX_CATCHUP_MINUTES,
    logger,
  );

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const loop = (): void => {
    if (stopped) return;
    const started = Date.now();
    current = rounds
      .round()
      .then((r) => {
        if (r.telemetry + r.events > 0) logger.debug({ ...r }, 'simulator round published');
      })
      .catch((err: unknown) => {
        if (!(err instanceof PublisherClosedError)) logger.error({ err }, 'simulator round failed');
      })
      .finally(() => {
        // Rounds never overlap: the next one waits for this one, however long it took.
        if (!stopped) timer = setTimeout(loop, Math.max(0, sim.SIM_TICK_MS - (Date.now() - started)));
      });
  };
  loop();
  logger.info({ vehicles: scenarios.length, fleet: fleet.length, clock: sim.SIM_CLOCK.kind }, 'simulator started');

  return [
    {
      name: 'simulator',
      async close() {
        stopped = true;
        if (timer) clearTimeout(timer);
        publisher.close();
        await current;
        // Give in-flight publishes a moment for their PUBACKs, then leave.
        await Promise.race([publisher.drain(), new Promise((r) => setTimeout(r, 2000).unref())]);
        await client.endAsync(true);
      },
    },
  ];
}
