import { NOTICE_TYPES } from '../../push/notices/notice.ts';
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
      events: {
        type: 'array',
        maxItems: 50,
        items: { type: 'string', minLength: 1, maxLength: 100 },
        description: 'The event filter: push items (events) of the subscription this endpoint receives. Absent: every one.',
      },
    },
  },
  response: {
    200: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        signingSecret: { type: 'string' },
        createdAt: { type: 'string', format: 'date-time' },
        pendingDeliveries: { type: 'integer', description: 'Only when an endpoint with deliveries still PENDING or RETRYING was replaced: how many (counted up to 1000). They are sent to the new url.' },
        note: { type: 'string', description: 'With pendingDeliveries: what happens to them, in words.' },
      },
      required: ['url', 'signingSecret', 'createdAt'],
    },
    ...bodyErrors,
  },
} as const;

/** The endpoint of the several-endpoints API: lowercase letters, digits and `-`. */
const endpointParams = {
  type: 'object',
  properties: { endpointId: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,39}$', description: 'Your name for the endpoint; `default` is the one of /push/v1/webhook.' } },
  required: ['endpointId'],
} as const;

export const putEndpointSchema = {
  ...putWebhookSchema,
  summary: 'Register or replace one of the subscription’s webhook endpoints',
  description:
    'A subscription may have up to 10 endpoints, each with its own url, signing secret (shown only in this answer), event filter (`events`), update items, notices and delivery log. ' +
    '`default` is the endpoint of /push/v1/webhook. Replacing an endpoint keeps its secret and re-enables it; deliveries still pending for it go to the new url, and the answer says how many.',
  params: endpointParams,
  response: {
    200: { ...putWebhookSchema.response[200], properties: { endpointId: { type: 'string' }, ...putWebhookSchema.response[200].properties }, required: ['endpointId', ...putWebhookSchema.response[200].required] },
    ...bodyErrors,
  },
} as const;

const webhookView = {
  type: 'object',
  properties: {
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' }, description: 'The event filter, when one was given; absent: every push item of the subscription.' },
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

const endpointView = { ...webhookView, properties: { endpointId: { type: 'string' }, ...webhookView.properties } } as const;

export const listEndpointsSchema = {
  summary: 'Every webhook endpoint of the subscription, without secrets',
  description: 'The default endpoint (the one of /push/v1/webhook) first, then by endpointId.',
  tags,
  security,
  response: { 200: { type: 'array', items: endpointView }, ...errors },
} as const;

export const getEndpointSchema = {
  summary: 'One webhook endpoint, without its secret',
  description: 'Its url, event filter, update items, notices and status (ENABLED, or DISABLED and why); 404 for an endpoint the subscription does not have.',
  tags,
  security,
  params: endpointParams,
  response: { 200: endpointView, ...errors },
} as const;

export const deleteEndpointSchema = {
  summary: 'Remove one webhook endpoint',
  description: 'Its deliveries still queued are dropped; the other endpoints are untouched.',
  tags,
  security,
  params: endpointParams,
  response: { 204: { type: 'null' }, ...errors },
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

export const rotateEndpointSecretSchema = {
  ...rotateSecretSchema,
  summary: 'Rotate one webhook endpoint’s signing secret',
  description: 'As POST /push/v1/webhook/rotate-secret, for this endpoint.',
  params: endpointParams,
} as const;

const delivery = {
  type: 'object',
  properties: {
    transactionId: { type: 'string' },
    endpointId: { type: 'string', description: 'The webhook endpoint it goes to (`default`: the one of /push/v1/webhook).' },
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
  description: 'Filter by endpoint, status and creation time: since (inclusive) and until (exclusive), ISO 8601. limit 1–1000, default 100.',
  tags,
  security,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      endpointId: { type: 'string', description: 'Only one endpoint’s delivery log (`default` for the one of /push/v1/webhook).' },
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
    properties: { since: { type: 'string' }, until: { type: 'string' }, endpointId: { type: 'string', description: 'The endpoint whose dead letters to send again; `default` when absent.' } },
  },
  response: {
    202: { type: 'object', properties: { replayed: { type: 'integer' }, more: { type: 'boolean' } }, required: ['replayed', 'more'] },
    ...bodyErrors,
  },
} as const;
