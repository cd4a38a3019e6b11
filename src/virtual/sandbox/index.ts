import type { FastifyInstance } from 'fastify';
import { rawMessage } from '../../domain/raw-message.ts';
import { apiErrors } from '../../errors.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { subscriptionLimit } from '../../http/rate-limit-hook.ts';
import { analyse, toDataPoints } from '../../pipeline/harmonize.ts';
import { createPushFanoutEnqueuer } from '../../push/fanout/fanout.ts';
import { createRateLimits } from '../../rate-limit/limits.ts';
import type { WingContext } from '../../http/wing-contract.ts';
import { eventTopic } from '../../../simulator/src/raw-format.ts';
import { inputProblem, sandboxEventMessage, type SandboxEventInput } from './raw-event.ts';
import { sandboxEventSchema } from './schemas.ts';

export interface SandboxOptions {
  services: WingContext;
}

/** The manufacturer whose vehicles the sandbox drives (adapters/virtual). */
export const VIRTUAL = 'virtual';

/**
 * The sandbox of the virtual vehicles: a consumer makes one of its virtual vehicles crash, place
 * a manual emergency call or a teleservice call now, and sees the push arrive. Part of the
 * virtual wing: the composition root registers it only when the simulator is on (SIMULATOR=on),
 * so elsewhere the path is a plain 404.
 *
 * The event stays with the caller's subscription (docs/sandbox.md): it is harmonized by the
 * virtual manufacturer's mapping exactly as the pipeline would, then handed to push for this
 * subscription only, and never stored as the vehicle's data. Stored, it would reach every
 * subscription that has the vehicle: one consumer (with any legal basis) could raise a crash
 * that another, whose user consented, reads and is pushed as real data.
 */
export default async function sandboxRoutes(app: FastifyInstance, opts: SandboxOptions): Promise<void> {
  const { services } = opts;
  const { store } = services;
  const fanout = createPushFanoutEnqueuer(services);
  app.addHook('onClose', async () => fanout.close());
  const limits = createRateLimits(services);
  const guard = { onRequest: requireSubscription(services), preValidation: subscriptionLimit(limits) };

  app.post<{ Params: { vin: string }; Body: SandboxEventInput }>('/sandbox/v1/vehicles/:vin/events', { schema: sandboxEventSchema, ...guard }, async (request, reply) => {
    const { subscription } = consumerContext(request);
    const { vin } = request.params;
    const input = request.body;
    const problem = inputProblem(input);
    if (problem) throw apiErrors.badRequest(problem);
    const vehicle = await store.vehicles.get(subscription.subscriptionId, vin);
    if (!vehicle) throw apiErrors.notFound('Vehicle not found in this subscription.');
    if (vehicle.manufacturer !== VIRTUAL) throw apiErrors.badRequest(`only the virtual manufacturer's vehicles take sandbox events; ${vin} is ${vehicle.manufacturer}'s.`);
    if (vehicle.status !== 'ACTIVATED') throw apiErrors.conflict(`Vehicle ${vin} is ${vehicle.status}; only an ACTIVATED vehicle takes sandbox events.`);
    if (!subscription.dataItems.includes(input.type)) throw apiErrors.itemsNotCovered([input.type]);
    if (subscription.legalBasis === 'CONSENT' && !(await store.consents.activeVins(subscription.subscriptionId, [vin])).has(vin)) {
      throw apiErrors.forbidden(`No active consent for vehicle ${vin} in this subscription.`);
    }
    const now = services.clock.now();
    const message = sandboxEventMessage(vin, input, now);
    const topic = eventTopic(vin);
    const adapter = services.adapters.get(VIRTUAL);
    if (!adapter) throw apiErrors.notFound('The virtual manufacturer is not configured here.');
    const msg = rawMessage({ manufacturer: VIRTUAL, messageType: 'event', receivedAt: now.toISOString(), topic }, JSON.stringify(message));
    const analysis = await analyse(adapter, services.catalog, msg);
    // The service's own event of a known vehicle: a failure is a defect of the virtual mapping.
    if (analysis.failure) throw new Error(`the sandbox event did not harmonize: ${analysis.failure.code}: ${analysis.failure.reason}`);
    const points = toDataPoints(adapter, analysis, msg);
    try {
      await fanout.enqueue(points, { only: subscription.subscriptionId });
    } catch (err) {
      if ((err as Error).name === 'StoreUnavailableError') throw err;
      request.log.warn({ err: (err as Error).message }, 'sandbox event not handed to push');
      throw apiErrors.unavailable(5);
    }
    const items = points.map((p) => ({ item: p.item, payload: p.payload }));
    return reply.code(202).send({ vin, type: input.type, topic, message, items });
  });
}
