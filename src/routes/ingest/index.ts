import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** HTTP ingestion of manufacturers' raw batches: /ingest/v1/{manufacturer}. */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
