import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/contract.ts';

/**
 * What vehicle management (activations, their workers, the poll schedule) needs of the process,
 * built by the composition root (src/main/contexts.ts). A function takes this or the few
 * members it uses (`Pick<ManagementContext, 'store'>`).
 */
export interface ManagementContext {
  /** The queue settings, and the delay of a manufacturer that confirms its activations itself. */
  config: Settings<'queues' | 'poller'> & Pick<Config, 'VIRTUAL_ACTIVATION_DELAY_MS'>;
  adapters: AdapterRegistry;
  clock: Clock;
  logger: Logger;
  store: Store;
  /** Where the activation and poll queues live (src/queues/redis.ts). */
  redisUrl: string;
  secrets: SecretBox;
  /** Whether a manufacturer whose activations confirm themselves has the VIN (src/services.ts). */
  ownsVin: (manufacturer: string, vin: string) => boolean;
}
