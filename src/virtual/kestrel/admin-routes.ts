import type { FastifyInstance } from 'fastify';
import type { Adapter } from '../../adapters/manifest.ts';
import type { WingContext } from '../../http/wing-contract.ts';
import { getApiFaults, NO_FAULTS, setApiFaults, type ApiFaults } from './api-faults.ts';
import { readRequestLog } from './request-log.ts';

const count = { type: 'integer', minimum: 0, maximum: 1_000_000 } as const;
const faultsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { slow: count, slowMs: { type: 'integer', minimum: 0, maximum: 600_000 }, rateLimited: count, retryAfterS: { type: 'integer', minimum: 0, maximum: 3600 }, serverErrors: count },
} as const;

/**
 * Admin routes of a simulated polled API (mounted under /admin/v1, behind the admin token):
 * PUT/GET /oem/<id>/api-faults orders faults for its next page requests (./api-faults.ts);
 * GET /oem/<id>/api-requests lists the page requests it received, oldest first.
 * Controls of a simulation for tests and demonstrations, not part of the service's API: left out
 * of the OpenAPI document (`hide`), documented in adapters/kestrel/README.md.
 */
export default async function pollApiAdminRoutes(app: FastifyInstance, opts: { services: WingContext; adapters: readonly Adapter[] }): Promise<void> {
  const { services } = opts;
  const prefix = services.config.QUEUE_PREFIX;
  const ids = opts.adapters.map((a) => a.manifest.id);
  const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', enum: ids } } } as const;

  app.put<{ Params: { id: string }; Body: Partial<ApiFaults> }>(
    '/oem/:id/api-faults',
    { schema: { hide: true, summary: "Order faults from a simulated polled API's next page requests", tags: ['admin'], security: [{ adminToken: [] }], params, body: faultsSchema } },
    async (request) => {
      const faults = { ...NO_FAULTS, ...request.body };
      await setApiFaults(services.redis, prefix, request.params.id, faults);
      return faults;
    },
  );
  app.get<{ Params: { id: string } }>(
    '/oem/:id/api-faults',
    { schema: { hide: true, summary: 'The faults still ordered from a simulated polled API', tags: ['admin'], security: [{ adminToken: [] }], params } },
    async (request) => getApiFaults(services.redis, prefix, request.params.id),
  );
  app.get<{ Params: { id: string } }>(
    '/oem/:id/api-requests',
    { schema: { hide: true, summary: 'The page requests a simulated polled API received, oldest first', tags: ['admin'], security: [{ adminToken: [] }], params } },
    async (request) => readRequestLog(services.redis, prefix, request.params.id),
  );
}
