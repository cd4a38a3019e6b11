import type { FastifyInstance } from 'fastify';
import type { Adapter } from '../../adapters/manifest.ts';
import { requireAdmin } from '../../http/admin-auth.ts';
import type { WingContext } from '../../http/wing-contract.ts';
import pollApiAdminRoutes from './admin-routes.ts';
import { loadSimulatedFleet } from './fleet.ts';
import pollApiRoutes from './routes.ts';
import type { SimSettings } from '../../../simulator/src/settings.ts';

/**
 * The simulated polled APIs of the virtual wing: one for every poll manifest whose API and token
 * endpoint are paths under `/oem/<id>/` on this service. Each serves the vehicles its adapter
 * folder lists in `simulated-fleet.json` (Kestrel's four; ./fleet.ts); one without that file (a
 * fresh scaffold) serves none, answering 404 for every VIN. Plus their admin routes under /admin/v1.
 */
export default async function simulatedPollApis(app: FastifyInstance, opts: { services: WingContext; sim: SimSettings }): Promise<void> {
  const { services, sim } = opts;
  const hosted = hostedPollApis(services.adapters.list());
  if (hosted.length === 0) return;
  for (const adapter of hosted) {
    const fleet = loadSimulatedFleet(adapter.dir, services.paths.scenarios, adapter.manifest.vinPrefixes);
    await app.register(pollApiRoutes, { services, sim, adapter, fleet });
  }
  await app.register(
    async (admin) => {
      admin.addHook('onRequest', requireAdmin(services));
      await admin.register(pollApiAdminRoutes, { services, adapters: hosted });
    },
    { prefix: '/admin/v1' },
  );
}

/** Poll adapters whose API this service simulates (both endpoints under /oem/<id>/). */
export function hostedPollApis(adapters: readonly Adapter[]): Adapter[] {
  return adapters.filter((a) => {
    const t = a.manifest.transport;
    const home = `/oem/${a.manifest.id}/`;
    return t.kind === 'poll' && t.apiBaseUrl.startsWith(home) && t.tokenEndpoint.startsWith(home);
  });
}
