import type { FastifyInstance } from 'fastify';
import { consumerSecurity, errorResponses } from '../../http/schemas.ts';
import { createTestEventSender, TEST_EVENTS_PER_MINUTE, TEST_VIN } from '../../push/webhooks/test-event.ts';
import type { PushRoutesShared } from './shared.ts';

export const testEventSchema = {
  summary: 'Send a signed test event to the webhook now',
  description:
    `POSTs one sample push to the registered url at once, signed and sent exactly like a real push (same secrets, Authorization value, SSRF checks and timeouts), ` +
    `and answers with what the receiver answered: its status, the time it took and the first KB of its body as text. The sample has the live service's envelope ` +
    `(\`inVehicleResponse\`, one \`accidentautomatic\` event) with \`"test": true\` and the VIN ${TEST_VIN}. ` +
    'A receiver that fails (refuses the connection, times out, answers an error) is still a 200 here: `status` is null or its status, and `error` says why. ' +
    `Nothing is recorded (no delivery, no retry; a disabled webhook stays disabled). At most ${TEST_EVENTS_PER_MINUTE} per minute per subscription (429 after). See docs/webhooks.md.`,
  tags: ['push'],
  security: consumerSecurity,
  response: {
    200: {
      type: 'object',
      required: ['webhookId', 'status', 'durationMs', 'error', 'bodyExcerpt'],
      properties: {
        webhookId: { type: 'string', description: 'The `webhook-id` (and `transactionId`) of the test event.' },
        status: { type: ['integer', 'null'], description: 'The receiver’s HTTP status; null when no answer came.' },
        durationMs: { type: 'integer' },
        error: { type: ['string', 'null'], description: 'Why this is not a success (e.g. `HTTP 500`, `connection refused`, `timeout after 10000 ms`); null on a 2xx.' },
        bodyExcerpt: { type: ['string', 'null'], description: 'The first 1024 bytes of the answer’s body as text (control characters removed); a non-text body is only named; null when empty.' },
      },
    },
    ...errorResponses(400, 401, 404, 429),
  },
} as const;

export const endpointTestEventSchema = {
  ...testEventSchema,
  summary: 'Send a signed test event to one webhook endpoint now',
  description: 'As POST /push/v1/webhook/test, to this endpoint, signed with its secret. The limit per minute is the subscription’s, shared by its endpoints.',
  params: { type: 'object', properties: { endpointId: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,39}$' } }, required: ['endpointId'] },
} as const;

/** POST /push/v1/webhook/test and /push/v1/webhooks/{endpointId}/test: a consumer checks its receiver before real data flows. */
export default async function testEventRoutes(app: FastifyInstance, opts: PushRoutesShared): Promise<void> {
  const sender = createTestEventSender(opts.ctx, opts.resolve);
  app.addHook('onClose', async () => sender.close());
  app.post('/push/v1/webhook/test', { schema: testEventSchema, ...opts.guard }, async (request) => {
    return sender.send(opts.subscriptionOf(request).subscription.subscriptionId);
  });
  app.post<{ Params: { endpointId: string } }>('/push/v1/webhooks/:endpointId/test', { schema: endpointTestEventSchema, ...opts.guard }, async (request) => {
    return sender.send(opts.subscriptionOf(request).subscription.subscriptionId, request.params.endpointId);
  });
}
