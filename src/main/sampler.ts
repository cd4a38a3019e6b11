import { startSampler, type SamplerOptions } from '../metrics/samples.ts';
import { CONSOLE_SAMPLES } from '../queues/keys.ts';
import type { Services } from '../services.ts';

/**
 * The pipeline charts' sampler (src/metrics/samples.ts) of this process, writing to the buckets
 * the keyspace registry names (CONSOLE_SAMPLES), which the console's charts read.
 */
export function startServiceSampler(services: Pick<Services, 'redis' | 'clock' | 'logger' | 'config'>, opts: SamplerOptions): ReturnType<typeof startSampler> {
  const { redis, clock, logger, config } = services;
  return startSampler({ redis, clock, logger, config, sampleKey: (range, bucketMs) => CONSOLE_SAMPLES.key(config.QUEUE_PREFIX, range, bucketMs) }, opts);
}
