import { NOTICE_TYPES } from '../../push/notice.ts';
import { DELIVERY_STATUSES } from '../../store/contract/deliveries.ts';
import { WEBHOOK_STATUSES } from '../../store/contract/webhooks.ts';
import { consumerSecurity, errorBodySchema } from '../../http/schemas.ts';

/** Route schemas of push delivery (api-contract section 7); they also feed the OpenAPI document. */
const errorBody = errorBodySchema;
const security = consumerSecurity;
const tags = ['push'];
const errors = { 400: errorBody, 401: errorBody, 404: errorBody, 409: errorBody, 429: errorBody, 503: errorBody };
/** The routes that take a JSON body also answer 415 to any other media type. */
const bodyErrors = { ...errors, 415: errorBody };
const nullableString = { type: ['string', 'null'] } as const;

export const putWebhookSchema = {
  summary: 'Register or replace the subscription’s webhook',
  description:
    'Answers with the signing secret (`whsec_…`), shown only in this answer. Re-registering keeps the secret and re-enables a disabled webhook. ' +
    'The url must be https and must not point to a loopback, private or reserved address. See docs/webhooks.md.',
  tags,
  security,
  body: {
    type: 'object',
    required: ['url'],
    additionalProperties: false,
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 2048 },
      authorization: { type: 'string', minLength: 1, maxLength: 1024, description: 'Sent verbatim as the Authorization header of every push: a valid header value (no CR/LF or other controls, ASCII, no edge whitespace), 400 otherwise.' },
      items: {
        type: 'array',
        maxItems: 200,
        items: { type: 'string', minLength: 1, maxLength: 100 },
        description: 'Pull items of the subscription to push as updates as well (events are always pushed).',
      },
      minIntervalSeconds: { type: 'integer', minimum: 1, maximum: 86400, description: 'Least data time between two update pushes of one vehicle and item. Default 60.' },
      notices: {
        type: 'array',
        maxItems: NOTICE_TYPES.length,
        items: { type: 'string', enum: [...NOTICE_TYPES] },
        description:
          'Notices to receive besides data pushes (bodies with `type` instead of `inVehicleResponse`). Default none: only the live service\'s envelope is sent. ' +
          'Without them, GET /consent/v1/consents shows withdrawals and GET /consent/v1/erasures erasures. See docs/webhooks.md.',
      },
    },
  },
  response: {
    200: {
      type: 'object',
      properties: { url: { type: 'string' }, signingSecret: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } },
      required: ['url', 'signingSecret', 'createdAt'],
    },
    ...bodyErrors,
  },
} as const;

const webhookView = {
  type: 'object',
  properties: {
    url: { type: 'string' },
    items: { type: 'array', items: { type: 'string' } },
    minIntervalSeconds: { type: 'integer' },
    notices: { type: 'array', items: { type: 'string' } },
    authorizationConfigured: { type: 'boolean' },
    status: { type: 'string', enum: [...WEBHOOK_STATUSES] },
    disabledReason: nullableString,
    failingSince: nullableString,
    previousSecretExpiresAt: nullableString,
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

export const getWebhookSchema = {
  summary: 'The subscription’s webhook, without its secret',
  tags,
  security,
  response: { 200: webhookView, ...errors },
} as const;

export const deleteWebhookSchema = {
  summary: 'Remove the subscription’s webhook',
  description: 'Deliveries still queued for it are dropped.',
  tags,
  security,
  response: { 204: { type: 'null' }, ...errors },
} as const;

export const rotateSecretSchema = {
  summary: 'Rotate the signing secret',
  description: 'The new secret is shown only here. The previous one keeps signing until previousSecretExpiresAt: both signatures are sent, space-separated.',
  tags,
  security,
  response: {
    200: {
      type: 'object',
      properties: { signingSecret: { type: 'string' }, previousSecretExpiresAt: { type: 'string' } },
      required: ['signingSecret', 'previousSecretExpiresAt'],
    },
    ...errors,
  },
} as const;

const delivery = {
  type: 'object',
  properties: {
    transactionId: { type: 'string' },
    vin: { type: 'string' },
    item: { type: 'string' },
    kind: { type: 'string', enum: ['event', 'update', 'notice'] },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          at: { type: 'string' },
          statusCode: { type: ['integer', 'null'] },
          error: nullableString,
          durationMs: { type: 'integer' },
        },
      },
    },
    lastError: nullableString,
    nextAttemptAt: nullableString,
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

export const listDeliveriesSchema = {
  summary: 'The subscription’s deliveries, newest first',
  description: 'Filter by status and by creation time: since (inclusive) and until (exclusive), ISO 8601. limit 1–1000, default 100.',
  tags,
  security,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
    },
  },
  response: { 200: { type: 'array', items: delivery }, ...errors },
} as const;

export const replayOneSchema = {
  summary: 'Send one delivery again',
  description: 'Same transactionId and webhook-id; consent and activation are checked again. 409 while it is still scheduled.',
  tags,
  security,
  params: { type: 'object', properties: { transactionId: { type: 'string', maxLength: 64 } }, required: ['transactionId'] },
  response: { 202: delivery, ...errors },
} as const;

export const replayBulkSchema = {
  summary: 'Send the dead-lettered deliveries of a time range again',
  description: `At most 1000 per call; "more": true says another call will find more.`,
  tags,
  security,
  body: {
    type: 'object',
    required: ['since'],
    additionalProperties: false,
    properties: { since: { type: 'string' }, until: { type: 'string' } },
  },
  response: {
    202: { type: 'object', properties: { replayed: { type: 'integer' }, more: { type: 'boolean' } }, required: ['replayed', 'more'] },
    ...bodyErrors,
  },
} as const;
