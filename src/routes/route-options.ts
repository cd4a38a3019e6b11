import type { Services } from '../services.ts';

/** What every route plugin receives. */
export interface RouteOptions {
  services: Services;
}
