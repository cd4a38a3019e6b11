import type { Services } from '../services.ts';
import type { Running } from '../runtime/startable.ts';

/**
 * The pipeline role: harmonization workers, plus the MQTT subscriber that feeds the queue when
 * an external broker (MQTT_URL) is used. OWNED BY THE PIPELINE WORK.
 */
export async function startPipeline(_services: Services, _mqttUrl: string): Promise<Running[]> {
  return [];
}
