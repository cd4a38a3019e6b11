import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adapterSecret } from '../../adapters/secrets.ts';
import type { Adapter, PollTransport } from '../../adapters/manifest.ts';
import type { WingContext } from '../../http/wing-contract.ts';
import { createSimClock } from '../../../simulator/src/sim-clock.ts';
import { gridPoint } from '../../../simulator/src/time-grid.ts';
import type { Vehicle } from '../../../simulator/src/vehicle.ts';
import type { SimSettings } from '../../../simulator/src/settings.ts';
import { takeFault, getApiFaults } from './api-faults.ts';
import { isClient, isValidApiToken, issueApiToken, TOKEN_TTL_S } from './api-token.ts';
import { decodeCursor, encodeCursor, readPage } from './pages.ts';
import { logRequest } from './request-log.ts';
import { KESTREL_API_RATE } from '../keys.ts';

export interface PollApiOptions {
  services: WingContext;
  /** The wing's settings: the simulated clock and the API's share of errors and slow answers (SIM_*). */
  sim: SimSettings;
  adapter: Adapter;
  /** The vehicles this API serves; any other VIN is answered 404 (not shared with us). */
  fleet: ReadonlyMap<string, Vehicle>;
}

/**
 * A polled manufacturer's simulated REST API (the contract of adapters/kestrel/README.md), at
 * the paths its manifest names: the client-credentials token endpoint and the page of signals
 * of one vehicle, with a rate limit of its own (429 + Retry-After beyond twice the manifest's
 * maxRequestsPerS in one second), occasional 503s and slow answers (SIM_POLL_*), and the faults
 * a test orders (./api-faults.ts). Pages come from the simulator's engine (./pages.ts).
 */
export default async function pollApiRoutes(app: FastifyInstance, opts: PollApiOptions): Promise<void> {
  const { services, sim, adapter, fleet } = opts;
  const { config, redis } = services;
  const t = adapter.manifest.transport as PollTransport;
  const id = adapter.manifest.id;
  const prefix = config.QUEUE_PREFIX;
  const simClock = createSimClock(sim.SIM_CLOCK, services.clock);
  const zone = { utcOffsetMinutes: sim.SIM_UTC_OFFSET_MINUTES };
  const perSecond = Math.max(1, Math.ceil(2 * (t.maxRequestsPerS ?? 5)));
  const secret = () => adapterSecret(config, adapter);

  // Requests held for a slow answer, released when the app closes so closing never waits.
  const held = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const release of held) release();
  });
  const hold = (ms: number) =>
    new Promise<void>((resolve) => {
      const release = () => {
        clearTimeout(timer);
        held.delete(release);
        resolve();
      };
      const timer = setTimeout(release, ms);
      held.add(release);
    });

  /** The API's own limit: a fixed one-second window shared by every process. */
  const overLimit = async (reply: FastifyReply): Promise<boolean> => {
    const window = KESTREL_API_RATE.key(prefix, id, Math.floor(services.clock.now().getTime() / 1000));
    const [[, count]] = (await redis.multi().incr(window).expire(window, 5).exec()) as [[null, number]];
    if (count <= perSecond) return false;
    void reply.code(429).header('retry-after', '1').send({ error: 'rate_limited', error_description: `at most ${perSecond} requests per second` });
    return true;
  };

  app.post(t.tokenEndpoint, { schema: { hide: true } }, async (request, reply) => {
    if (await overLimit(reply)) return reply;
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
    reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
    if (!isClient(request.headers.authorization, t.clientId, secret())) {
      return reply.code(401).header('www-authenticate', 'Basic realm="api"').send({ error: 'invalid_client' });
    }
    if (body.grant_type !== 'client_credentials') return reply.code(400).send({ error: 'unsupported_grant_type' });
    return { access_token: issueApiToken(secret(), services.clock.now().getTime()), token_type: 'Bearer', expires_in: TOKEN_TTL_S, ...(t.scope ? { scope: t.scope } : {}) };
  });

  const pageRoute = `${t.apiBaseUrl}${t.pagePath.replace('{vin}', ':vin')}`;
  app.get(pageRoute, { schema: { hide: true } }, async (request: FastifyRequest<{ Params: { vin: string }; Querystring: Record<string, string | undefined> }>, reply) => {
    if (await overLimit(reply)) return reply;
    if (!isValidApiToken(secret(), request.headers.authorization, services.clock.now().getTime())) {
      return reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send({ error: 'invalid_token' });
    }
    const { vin } = request.params;
    const vehicle = fleet.get(vin);
    if (!vehicle) return reply.code(404).send({ error: 'not_found', error_description: 'no such vehicle shared with this client' });
    const limit = Number(request.query[t.pageSizeParam ?? 'limit'] ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return reply.code(400).send({ error: 'invalid_request', error_description: 'limit must be 1..1000' });
    const cursor = request.query[t.cursorParam ?? 'cursor'];
    const from = cursor === undefined ? null : decodeCursor(cursor);
    if (cursor !== undefined && !from) return reply.code(400).send({ error: 'invalid_request', error_description: 'unknown cursor' });
    const header = request.headers['x-request-id'];
    const requestId = typeof header === 'string' ? header.slice(0, 100) : null;
    const entry = { vin, cursor: cursor ?? null, requestId };
    await logRequest(redis, prefix, id, { ...entry, at: services.clock.now().toISOString(), phase: 'received' });
    const answered = async (status: number, extra: { nextCursor?: string; signals?: number } = {}) =>
      logRequest(redis, prefix, id, { ...entry, at: services.clock.now().toISOString(), phase: 'answered', status, ...extra });

    if (await takeFault(redis, prefix, id, 'slow')) await hold((await getApiFaults(redis, prefix, id)).slowMs);
    else if (Math.random() < sim.SIM_POLL_SLOW_RATE) await hold(sim.SIM_POLL_SLOW_MS);
    if (await takeFault(redis, prefix, id, 'rateLimited')) {
      await answered(429);
      return reply.code(429).header('retry-after', String((await getApiFaults(redis, prefix, id)).retryAfterS)).send({ error: 'rate_limited' });
    }
    if ((await takeFault(redis, prefix, id, 'serverErrors')) || Math.random() < sim.SIM_POLL_ERROR_RATE) {
      await answered(503);
      return reply.code(503).send({ error: 'temporarily_unavailable' });
    }

    const nowMinute = gridPoint(simClock.now(), zone.utcOffsetMinutes).minute;
    const start = from ?? { minute: nowMinute - sim.SIM_POLL_BACKFILL_MINUTES + 1, index: 0 };
    const page = readPage(vehicle, start, limit, nowMinute, zone);
    const nextCursor = encodeCursor(page.next);
    await answered(200, { nextCursor, signals: page.signals.length });
    return { vin, ...(cursor === undefined ? {} : { cursor }), nextCursor, hasMore: page.hasMore, signals: page.signals };
  });
}
