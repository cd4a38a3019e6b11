import type { Catalog } from '../catalog/catalog.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../store/contract.ts';

/**
 * What provisioning needs: the store, the clock and (for subscriptions) the catalog. A subset
 * of `Services`, so the admin API passes its services and the CLI builds just these three,
 * without Redis, the broker or the adapters.
 */
export interface ProvisioningDeps {
  store: Store;
  clock: Clock;
  catalog: Catalog;
}
