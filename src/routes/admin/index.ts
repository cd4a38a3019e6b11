import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../http/admin-auth.ts';
import type { AdminContext, RouteGroupOptions } from '../contexts.ts';
import consumers from './consumers.ts';
import erasure from './erasure.ts';
import failedBatches from './failed-batches.ts';
import mappings from './mappings.ts';
import quarantine from './quarantine.ts';
import subscriptions from './subscriptions.ts';

/** /admin/v1/*: operators' API, behind `Authorization: Bearer $ADMIN_TOKEN`. */
export default async function adminRoutes(app: FastifyInstance, opts: RouteGroupOptions<AdminContext>): Promise<void> {
  app.addHook('onRequest', requireAdmin(opts.ctx));
  for (const plugin of [consumers, subscriptions, quarantine, failedBatches, mappings, erasure]) {
    // Not `opts`: it carries this plugin's own prefix, which would be applied twice.
    await app.register(plugin, { ctx: opts.ctx });
  }
}
