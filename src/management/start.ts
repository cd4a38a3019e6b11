import type { Services } from '../services.ts';
import type { Running } from '../runtime/startable.ts';

/** Workers that carry out activations with the manufacturers. OWNED BY THE MANAGEMENT WORK. */
export async function startActivationWorkers(_services: Services): Promise<Running[]> {
  return [];
}
