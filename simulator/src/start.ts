import type { Services } from '../../src/services.ts';
import type { Running } from '../../src/runtime/startable.ts';

/** The simulator role: virtual vehicles publishing raw telemetry over MQTT. OWNED BY THE SIMULATOR WORK. */
export async function startSimulator(_services: Services, _mqttUrl: string): Promise<Running[]> {
  return [];
}
