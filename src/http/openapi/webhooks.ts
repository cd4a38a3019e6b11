import { ERASURE_NOTICE_TYPE } from '../../push/notices/erasure-notice.ts';
import { REVOCATION_NOTICE_TYPE } from '../../push/notices/revocation-notice.ts';

/**
 * The `webhooks` section of the OpenAPI document (OpenAPI 3.1): what the service POSTs to a
 * consumer's webhook (docs/webhooks.md). Three bodies share one envelope (src/push/message/envelope.ts,
 * src/push/notices/notice.ts) and the Standard Webhooks signature headers; the two notices are sent only
 * to webhooks that opted in with `notices`.
 */
const identifier = {
  type: 'object',
  required: ['type', 'value'],
  properties: { type: { type: 'string', const: 'VIN' }, value: { type: 'string', description: 'The VIN.' } },
} as const;

/** The fields every push body starts with. */
const envelope = {
  forwardedAt: { type: 'string', format: 'date-time', description: 'When this attempt was sent.' },
  transactionId: { type: 'string', format: 'uuid', description: 'Equals `webhook-id`: the same for every attempt and replay of one delivery. Deduplicate on it.' },
  subscriptionId: { type: 'string', format: 'uuid' },
} as const;
const envelopeRequired = ['forwardedAt', 'transactionId', 'subscriptionId'];

const dataPush = {
  type: 'object',
  required: [...envelopeRequired, 'inVehicleResponse'],
  properties: {
    ...envelope,
    test: { type: 'boolean', const: true, description: 'Only on a test event (POST /push/v1/webhook/test, VIN TEST0000000000000); a real push never has it.' },
    inVehicleResponse: {
      type: 'object',
      description: 'Exactly the format of the in-vehicle delivery answer, with one item of one vehicle.',
      required: ['version', 'deliveredAt', 'inVehicleData'],
      properties: {
        version: { type: 'string', const: '1.0' },
        deliveredAt: { type: 'string', format: 'date-time' },
        inVehicleData: {
          type: 'array',
          minItems: 1,
          maxItems: 1,
          items: {
            type: 'object',
            required: ['identifier', 'response'],
            properties: {
              identifier,
              response: {
                type: 'object',
                description: 'One entry, keyed by the item’s technicalName; its `dataPoint` is valid against the item’s catalog schema.',
                additionalProperties: { type: 'object', required: ['dataPoint'], properties: { dataPoint: { type: 'object', additionalProperties: true } } },
              },
            },
          },
        },
      },
    },
  },
} as const;

const erasureNotice = {
  type: 'object',
  required: [...envelopeRequired, 'type', 'vehicleDataErased'],
  properties: {
    ...envelope,
    type: { type: 'string', const: ERASURE_NOTICE_TYPE },
    vehicleDataErased: {
      type: 'object',
      required: ['identifier', 'erasedAt', 'scope'],
      properties: {
        identifier,
        erasedAt: { type: 'string', format: 'date-time' },
        scope: { type: 'string', enum: ['VEHICLE', 'SUBSCRIPTION'], description: 'VEHICLE: all of the vehicle’s data; SUBSCRIPTION: only what your subscription held.' },
      },
    },
  },
} as const;

const revocationNotice = {
  type: 'object',
  required: [...envelopeRequired, 'type', 'consentRevoked'],
  properties: {
    ...envelope,
    type: { type: 'string', const: REVOCATION_NOTICE_TYPE },
    consentRevoked: {
      type: 'object',
      required: ['consentId', 'identifier', 'revokedAt', 'by'],
      properties: {
        consentId: { type: 'string' },
        identifier,
        revokedAt: { type: 'string', format: 'date-time' },
        by: { type: 'string', const: 'DATA_SUBJECT', description: 'A revocation through DELETE /consent/v1/consents sends no notice.' },
      },
    },
  },
} as const;

/** The Standard Webhooks headers (https://www.standardwebhooks.com/) of every push. */
const headers = [
  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'The delivery’s transactionId; deduplicate on it.' },
  { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'Unix seconds of this attempt. Reject values more than 5 minutes from your clock.' },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description:
      '`v1,` + base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part of the signing secret after `whsec_`. During a secret rotation two signatures, space-separated; accept when any one matches.',
  },
  { name: 'authorization', in: 'header', required: false, schema: { type: 'string' }, description: 'The `authorization` value of the webhook’s configuration, verbatim, when one was given.' },
] as const;

const responses = {
  '2XX': { description: 'Received. Only a 2xx counts; answer quickly and do the work afterwards.' },
  '410': { description: 'Gone: disables the webhook at once.' },
  default: { description: 'Any other answer, a redirect or a timeout is a failure: retried on the schedule of docs/webhooks.md, then dead-lettered.' },
};

const hook = (operationId: string, summary: string, description: string, schema: object) => ({
  post: {
    operationId,
    summary,
    description,
    tags: ['push'],
    // The receiver checks the Standard Webhooks signature, not an OpenAPI security scheme.
    security: [],
    parameters: headers,
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses,
  },
});

/** `webhooks` of the document, keyed by the name the examples file uses (test/openapi/). */
export const WEBHOOKS = {
  vehicleData: hook(
    'onVehicleData',
    'A data push: an event, or an update of a watched pull item',
    'Sent for each event of a vehicle that is ACTIVATED and consented in the subscription, and for updates of the webhook’s `items`. Verify the signature over the raw body before parsing.',
    dataPush,
  ),
  vehicleDataErased: hook(
    'onVehicleDataErased',
    'Notice `vehicle.data_erased` (opt-in)',
    'Sent once per GDPR erasure that concerned the subscription, only when the webhook’s `notices` lists `vehicle.data_erased`. Erase your copy of the vehicle’s data.',
    erasureNotice,
  ),
  consentRevoked: hook(
    'onConsentRevoked',
    'Notice `consent.revoked` (opt-in)',
    'Sent when the user withdrew a consent at the portal, only when the webhook’s `notices` lists `consent.revoked`. Stop using the vehicle’s data under that consent.',
    revocationNotice,
  ),
};
