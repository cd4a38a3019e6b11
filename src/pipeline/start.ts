import { startExternalSubscriber } from '../adapters/mqtt/subscriber.ts';
import type { Running } from '../running.ts';
import type { Services } from '../services.ts';
import { startHarmonizeWorker } from './worker.ts';

/**
 * The pipeline role: harmonization workers, plus the MQTT subscriber that feeds the queue when
 * an external broker (MQTT_URL) is used and MQTT_SUBSCRIBER is on. With the embedded broker
 * no subscriber is needed: the broker queues each publish itself before acknowledging it.
 * OWNED BY THE PIPELINE WORK.
 */
export async function startPipeline(services: Services, mqttUrl: string): Promise<Running[]> {
  const running: Running[] = [startHarmonizeWorker(services)];
  if (services.config.MQTT_URL && services.config.MQTT_SUBSCRIBER === 'on') {
    running.push(await startExternalSubscriber(services, mqttUrl));
  }
  return running;
}
