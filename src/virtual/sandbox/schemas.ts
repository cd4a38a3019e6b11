import { consumerSecurity, errorResponses } from '../../http/schemas.ts';
import { CRASH_ZONES, SANDBOX_EVENTS } from './raw-event.ts';

const rawEvent = {
  type: 'object',
  description: 'The raw `virtual/v1/<VIN>/event` message published (adapters/virtual/README.md).',
  required: ['schema', 'messageId', 'vin', 'occurredAt', 'event'],
  properties: {
    schema: { type: 'string', const: 'virtual.event/1' },
    messageId: { type: 'string' },
    vin: { type: 'string' },
    occurredAt: { type: 'string', format: 'date-time' },
    event: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['CRASH', 'MANUAL_EMERGENCY_CALL', 'TELESERVICE_CALL'] } }, additionalProperties: true },
  },
} as const;

/** POST /sandbox/v1/vehicles/{vin}/events (issue 23 item 4). */
export const sandboxEventSchema = {
  summary: 'Make a virtual vehicle raise an event now (sandbox)',
  description:
    'Only where the virtual vehicles run (`SIMULATOR=on`, as in the local try-out; 404 elsewhere), and only for a vehicle of the virtual manufacturer ' +
    'that is ACTIVATED in this subscription and, under the CONSENT legal basis, has an active consent; the event item must be in the subscription. ' +
    'The vehicle sends the raw event over MQTT like any virtual vehicle, so it is harmonized, stored and pushed to your webhook like a real one, ' +
    'and the pull answers it (a crash: `crashseverity` and the `crashlocation*` items). Stamped with the service’s clock. ' +
    'Answers 202 with the message sent; 503 when the MQTT broker did not take it. See docs/sandbox.md.',
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
      required: ['vin', 'type', 'topic', 'message'],
      properties: { vin: { type: 'string' }, type: { type: 'string' }, topic: { type: 'string' }, message: rawEvent },
    },
    ...errorResponses(400, 401, 403, 404, 409, 429, 503),
  },
} as const;
