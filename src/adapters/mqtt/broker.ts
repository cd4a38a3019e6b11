import type { Services } from '../../services.ts';
import type { Running } from '../../runtime/startable.ts';

/** The embedded aedes broker on MQTT_HOST:MQTT_PORT. OWNED BY THE PIPELINE WORK. */
export async function startEmbeddedBroker(_services: Services): Promise<Running & { url: string }> {
  throw new Error('startEmbeddedBroker is not implemented yet');
}
