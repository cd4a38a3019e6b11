import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { subscriptionLimit } from '../../http/rate-limit-hook.ts';
import { createRateLimits } from '../../rate-limit/limits.ts';
import type { Services } from '../../services.ts';
import { eventTopic } from '../../../simulator/src/raw-format.ts';
import { BrokerUnavailableError, createSandboxPublisher } from './publisher.ts';
import { inputProblem, sandboxEventMessage, type SandboxEventInput } from './raw-event.ts';
import { sandboxEventSchema } from './schemas.ts';

export interface SandboxOptions {
  services: Services;
  /** The MQTT broker the virtual vehicles publish to; read at the first call (it may start after the API). */
  brokerUrl: () => string;
}

/** The manufacturer whose vehicles the sandbox drives (adapters/virtual). */
export const VIRTUAL = 'virtual';

/**
 * The sandbox of the virtual vehicles (issue 23 item 4): a consumer makes one of its virtual
 * vehicles crash, place a manual emergency call or a teleservice call now, and sees the push
 * arrive and the pull change. Part of the virtual wing: the composition root registers it only
 * when the simulator is on (SIMULATOR=on), so elsewhere the path is a plain 404.
 */
export default async function sandboxRoutes(app: FastifyInstance, opts: SandboxOptions): Promise<void> {
  const { services } = opts;
  const { store } = services;
  const publisher = createSandboxPublisher(services, opts.brokerUrl);
  app.addHook('onClose', async () => publisher.close());
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
    const message = sandboxEventMessage(vin, input, services.clock.now());
    const topic = eventTopic(vin);
    try {
      await publisher.publish(topic, JSON.stringify(message));
    } catch (err) {
      if (err instanceof BrokerUnavailableError) throw apiErrors.unavailable(5, `Service temporarily unavailable: ${err.message}.`);
      throw err;
    }
    return reply.code(202).send({ vin, type: input.type, topic, message });
  });
}
