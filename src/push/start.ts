import type { Services } from '../services.ts';
import type { Running } from '../runtime/startable.ts';

/** The push role: fan-out and webhook delivery workers. OWNED BY THE PUSH WORK. */
export async function startPushWorkers(_services: Services): Promise<Running[]> {
  return [];
}
