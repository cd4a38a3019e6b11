import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../http/schemas.ts';
import { FAULT_MODES, getFault, setFault, type FaultMode } from './fault.ts';
import type { RouteOptions } from '../../routes/route-options.ts';

const faultSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  properties: { mode: { type: 'string', enum: [...FAULT_MODES] } },
} as const;

/**
 * PUT /admin/v1/oem/virtual/fault {"mode": "none" | "down" | "timeout"} (api-contract section 4):
 * makes the virtual manufacturer's token endpoint drop connections or answer too late, to
 * exercise the consent flow's connection_error and communication_timeout.
 */
export default async function routes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { services } = opts;
  const prefix = services.config.QUEUE_PREFIX;

  app.put<{ Body: { mode: FaultMode } }>(
    '/oem/virtual/fault',
    {
      schema: {
        summary: "Switch a fault on the virtual manufacturer's token endpoint",
        tags: ['admin'],
        security: [{ adminToken: [] }],
        body: faultSchema,
        response: { 200: faultSchema, ...errorResponses(400, 401, 415) },
      },
    },
    async (request) => {
      await setFault(services.redis, prefix, 'virtual', request.body.mode);
      return { mode: request.body.mode };
    },
  );

  app.get(
    '/oem/virtual/fault',
    { schema: { summary: "The virtual manufacturer's current fault mode", tags: ['admin'], security: [{ adminToken: [] }], response: { 200: faultSchema } } },
    async () => ({ mode: await getFault(services.redis, prefix, 'virtual') }),
  );
}
