import type { AdapterRegistry } from '../adapters/registry.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Store } from '../store/contract.ts';

/**
 * What delivery (in-vehicle reads, history, capabilities) needs of the process, built by the
 * composition root (src/main/contexts.ts): the cached reads of the hot path, the store for
 * history, the catalog and the manufacturers. No settings: the limits are the HTTP layer's.
 * A function takes this or the few members it uses (`Pick<DeliveryContext, 'readModel'>`).
 */
export interface DeliveryContext {
  adapters: AdapterRegistry;
  catalog: Catalog;
  clock: Clock;
  logger: Logger;
  store: Store;
  readModel: ReadModel;
  /** The catalog items one vehicle supplies, as its manufacturer says, or null (src/services.ts). */
  vehicleItems: (manufacturer: string, vin: string) => ReadonlySet<string> | null;
}
