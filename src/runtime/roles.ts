import { startEmbeddedBroker } from '../adapters/mqtt/broker.ts';
import { buildApp } from '../app.ts';
import { startActivationWorkers } from '../management/start.ts';
import { startPipeline } from '../pipeline/start.ts';
import { startPushWorkers } from '../push/start.ts';
import type { Services } from '../services.ts';
import { startSimulator } from '../../simulator/src/start.ts';
import type { Running } from './startable.ts';

/**
 * Starts the roles this process runs (ROLES; "all" by default). The order matters on the way
 * up (the broker before its publishers, the API last, when there is somewhere to queue work)
 * and is reversed on the way down.
 */
export async function startRoles(services: Services): Promise<Running[]> {
  const { config, logger } = services;
  const roles = new Set(config.ROLES);
  const running: Running[] = [];
  let mqttUrl = config.MQTT_URL;
  if (roles.has('broker') && !config.MQTT_URL) {
    const broker = await startEmbeddedBroker(services);
    running.push(broker);
    mqttUrl = broker.url;
    logger.info({ url: broker.url }, 'embedded MQTT broker listening');
  }
  const brokerUrl = mqttUrl ?? `mqtt://127.0.0.1:${config.MQTT_PORT}`;
  if (roles.has('pipeline')) {
    running.push(...(await startPipeline(services, brokerUrl)));
    running.push(...(await startActivationWorkers(services)));
  }
  if (roles.has('push')) running.push(...(await startPushWorkers(services)));
  if (roles.has('simulator') && config.SIMULATOR === 'on') running.push(...(await startSimulator(services, brokerUrl)));
  if (roles.has('api')) {
    const app = await buildApp(services);
    await app.listen({ port: config.PORT, host: config.HOST });
    running.push({ name: 'api', close: () => app.close() });
  }
  return running;
}

/** Stops in reverse order of start. */
export async function stopRoles(running: Running[]): Promise<void> {
  for (const r of [...running].reverse()) await r.close();
}
