import type { Services } from '../services.ts';

/**
 * What the virtual wing's plugins receive when main mounts them (src/main/http-app.ts): the
 * whole services object, until the wing has a context of its own. The service's route groups
 * receive their part's context instead (src/routes/contexts.ts).
 */
export interface RouteOptions {
  services: Services;
}
