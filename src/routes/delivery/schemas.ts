import { HISTORY_MAX_LIMIT } from '../../delivery/history.ts';
import { consumerSecurity, errorBodySchema } from '../../http/schemas.ts';

/**
 * Route schemas of delivery (api-contract section 6) and history (docs/history.md). The body
 * schema checks shapes only; the contract's rules with their exact texts (version, empty lists,
 * at most 10 vehicles, items outside the subscription) are checked by src/delivery/request.ts.
 * `dataPoint` payloads are free objects: each item's own schema is in the catalog.
 */
const errorBody = errorBodySchema;
const security = consumerSecurity;
const errors = { 400: errorBody, 401: errorBody, 429: errorBody, 503: errorBody };

const identifier = {
  type: 'object',
  required: ['type', 'value'],
  properties: {
    type: { type: 'string', description: '`VIN` is the only supported type.' },
    value: { type: 'string', description: 'The vehicle identification number.' },
  },
} as const;

const error = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' } },
  required: ['code', 'message'],
} as const;

export const inVehicleSchema = {
  summary: 'The latest harmonized data of up to 10 vehicles',
  description: 'Error codes: docs/delivery-errors.md.',
  tags: ['delivery'],
  security,
  body: {
    type: 'object',
    required: ['version'],
    properties: {
      version: { type: 'string', description: '`1.0`.' },
      vehicles: { type: 'array', items: { type: 'object', required: ['identifier'], properties: { identifier } } },
      dataItems: { type: 'array', items: { type: 'string' }, description: 'technicalName values from the catalog.' },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['version', 'deliveredAt', 'inVehicleData'],
      properties: {
        version: { type: 'string' },
        deliveredAt: { type: 'string', format: 'date-time' },
        inVehicleData: {
          type: 'array',
          items: {
            type: 'object',
            required: ['identifier'],
            properties: {
              identifier,
              error,
              response: {
                type: 'object',
                description: 'One entry per requested item: `{dataPoint}` or `{error}`.',
                additionalProperties: {
                  type: 'object',
                  properties: { dataPoint: { type: 'object', additionalProperties: true }, error },
                },
              },
            },
          },
        },
      },
    },
    ...errors,
  },
} as const;

export const historySchema = {
  summary: "A vehicle's history of one item, newest first, paginated",
  description: 'Same checks as delivery; see docs/history.md.',
  tags: ['delivery'],
  security,
  params: {
    type: 'object',
    required: ['vin', 'item'],
    properties: { vin: { type: 'string' }, item: { type: 'string', description: 'technicalName.' } },
  },
  querystring: {
    type: 'object',
    properties: {
      from: { type: 'string', description: 'Inclusive lower bound (ISO 8601 instant) of the payload time.' },
      to: { type: 'string', description: 'Exclusive upper bound (ISO 8601 instant).' },
      limit: { type: 'string', description: `Page size, default 100, larger values are clamped to ${HISTORY_MAX_LIMIT}.` },
      cursor: { type: 'string', description: '`nextCursor` of the previous page.' },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['identifier', 'item', 'dataPoints', 'nextCursor'],
      properties: {
        identifier,
        item: { type: 'string' },
        dataPoints: { type: 'array', items: { type: 'object', additionalProperties: true } },
        nextCursor: { type: ['string', 'null'] },
      },
    },
    403: errorBody,
    404: errorBody,
    ...errors,
  },
} as const;
