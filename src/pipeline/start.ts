import type { Running } from '../running.ts';
import type { HarmonizeDeps } from './context.ts';
import { startHarmonizeWorker } from './worker.ts';

/**
 * The pipeline role's own part: the harmonization workers. What feeds their queue (the embedded
 * broker, the external-broker subscriber, HTTP batches) is in src/transports/, started by
 * src/main/roles.ts. OWNED BY THE PIPELINE WORK.
 */
export async function startPipeline(services: HarmonizeDeps): Promise<Running[]> {
  return [startHarmonizeWorker(services)];
}
