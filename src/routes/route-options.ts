import type { WingContext } from '../http/wing-contract.ts';

/**
 * What the virtual wing's plugins receive when main mounts them (src/main/http-app.ts): the
 * wing's context (src/http/wing-contract.ts). The service's route groups receive their part's
 * context instead (src/routes/contexts.ts).
 */
export interface RouteOptions {
  services: WingContext;
}
