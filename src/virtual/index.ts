import type { FastifyInstance } from 'fastify';
import type { Adapter } from '../adapters/manifest.ts';
import { requireAdmin } from '../http/admin-auth.ts';
import type { WingRouteOptions } from '../http/wing-contract.ts';
import type { SimSettings } from '../../simulator/src/settings.ts';
import demoRoutes from './demo/routes.ts';
import simulatedPollApis from './kestrel/index.ts';
import faultRoutes from './oem/fault-routes.ts';
import oemRoutes from './oem/routes.ts';
import sandboxRoutes from './sandbox/index.ts';

/**
 * The virtual wing over HTTP: a manufacturer like any other, seen from outside. Registered by
 * ./wing.ts, mounted by the composition root only where the wing is loaded (SIMULATOR=on):
 * - one simulated authorization server per issuer path the adapters declare ("/oem/<name>",
 *   the manifest rule in src/adapters/manifest-rules.ts), so every manufacturer that asks for
 *   one gets one: adding a manufacturer touches only its adapters/ and mappings/ folders;
 * - PUT/GET /admin/v1/oem/virtual/fault, behind the admin token like the rest of /admin/v1;
 * - the polled manufacturers' simulated REST APIs (src/virtual/kestrel);
 * - the demo consumer's callback page;
 * - the sandbox, where the process has a broker to publish to (docs/sandbox.md).
 */
export function wingRoutes(sim: SimSettings) {
  return async function virtualWing(app: FastifyInstance, opts: WingRouteOptions): Promise<void> {
    const { services } = opts;
    for (const prefix of hostedIssuers(services.adapters.list())) await app.register(oemRoutes, { services, prefix });
    await app.register(
      async (admin) => {
        admin.addHook('onRequest', requireAdmin(services));
        await admin.register(faultRoutes, { services });
      },
      { prefix: '/admin/v1' },
    );
    await app.register(simulatedPollApis, { services, sim });
    const { store, adapters, catalog, vehicleItems } = services;
    await app.register(demoRoutes, { deps: { store, adapters, catalog, vehicleItems }, portalUrl: services.config.portalUrl });
    if (opts.sandbox) await app.register(sandboxRoutes, { services });
  };
}

/** The issuer paths of the authorization servers this service hosts, each once. */
export function hostedIssuers(adapters: readonly Adapter[]): string[] {
  return [...new Set(adapters.map((a) => a.manifest.authorization.issuer).filter((issuer) => issuer.startsWith('/')))].sort();
}
