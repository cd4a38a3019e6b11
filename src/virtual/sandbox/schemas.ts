import { consumerSecurity, errorResponses } from '../../http/schemas.ts';
import { CRASH_ZONES, SANDBOX_EVENTS } from './raw-event.ts';

const rawEvent = {
  type: 'object',
  description: 'The raw `virtual/v1/<VIN>/event` message the vehicle raised (adapters/virtual/README.md), as the virtual mapping harmonized it.',
  required: ['schema', 'messageId', 'vin', 'occurredAt', 'event'],
  properties: {
    schema: { type: 'string', const: 'virtual.event/1' },
    messageId: { type: 'string' },
    vin: { type: 'string' },
    occurredAt: { type: 'string', format: 'date-time' },
    event: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['CRASH', 'MANUAL_EMERGENCY_CALL', 'TELESERVICE_CALL'] } }, additionalProperties: true },
  },
} as const;

/** POST /sandbox/v1/vehicles/{vin}/events: a consumer makes its own virtual vehicle raise an event now. */
export const sandboxEventSchema = {
  summary: 'Make a virtual vehicle raise an event now (sandbox)',
  description:
    'Only where the virtual vehicles run (`SIMULATOR=on`, as in the local try-out; 404 elsewhere), and only for a vehicle of the virtual manufacturer ' +
    'that is ACTIVATED in this subscription and, under the CONSENT legal basis, has an active consent; the event item must be in the subscription. ' +
    'The raw event is harmonized by the virtual manufacturer’s mapping like a real one and pushed to this subscription’s webhook only ' +
    '(a crash: `accidentautomatic`, and `crashseverity` and the `crashlocation*` items where the webhook watches them). It is not stored as the ' +
    'vehicle’s data: the pull does not answer it, and no other subscription sees it. Stamped with the service’s clock. ' +
    'Answers 202 with the raw message and the harmonized items; 503 when push could not take it. See docs/sandbox.md.',
  tags: ['sandbox'],
  security: consumerSecurity,
  params: { type: 'object', required: ['vin'], properties: { vin: { type: 'string', minLength: 1, maxLength: 64 } } },
  body: {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', enum: Object.keys(SANDBOX_EVENTS), description: 'The event item to raise.' },
      severity: { type: 'integer', minimum: 1, maximum: 5, description: 'accidentautomatic only: crash severity, default 3.' },
      zones: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...CRASH_ZONES] }, description: 'accidentautomatic only: where the car was hit, default FRONT_LEFT.' },
      rollover: { type: 'boolean', description: 'accidentautomatic only, default false.' },
      pedestrianProtection: { type: 'boolean', description: 'accidentautomatic only, default false.' },
      reason: { type: 'string', minLength: 1, maxLength: 200, description: 'automaticteleservicecall only: why the car called, default SANDBOX.' },
    },
  },
  response: {
    202: {
      type: 'object',
      required: ['vin', 'type', 'topic', 'message', 'items'],
      properties: {
        vin: { type: 'string' },
        type: { type: 'string' },
        topic: { type: 'string', description: 'The topic a virtual vehicle sends such an event on.' },
        message: rawEvent,
        items: {
          type: 'array',
          description: 'The harmonized items, as this subscription’s webhook receives them.',
          items: { type: 'object', required: ['item', 'payload'], properties: { item: { type: 'string' }, payload: { type: 'object', additionalProperties: true } } },
        },
      },
    },
    ...errorResponses(400, 401, 403, 404, 409, 429, 503),
  },
} as const;
