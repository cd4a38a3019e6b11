import { ITEM_ERRORS, VEHICLE_ERRORS } from '../../delivery/error-codes.ts';
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

/** A vehicle's or an item's error inside the 200, with the codes it can carry (docs/delivery-errors.md). */
const errorOf = (table: Record<string, string>, what: string) =>
  ({
    type: 'object',
    description: `${what} error: ${Object.entries(table).map(([code, message]) => `\`${code}\` ${message}`).join(' ')}`,
    properties: { code: { type: 'string', enum: Object.keys(table) }, message: { type: 'string' } },
    required: ['code', 'message'],
  }) as const;
const vehicleErrorSchema = errorOf(VEHICLE_ERRORS, 'Vehicle-level');
const itemErrorSchema = errorOf(ITEM_ERRORS, 'Item-level');

export const inVehicleSchema = {
  summary: 'The latest harmonized data of up to 10 vehicles',
  description:
    'Whole-request problems are an HTTP error; everything about one vehicle or one item is reported inside the 200 (`error` with a `CAR.VE.9xx` code), so one bad VIN never costs the others their data. See docs/delivery-errors.md.',
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
              error: vehicleErrorSchema,
              response: {
                type: 'object',
                description: 'One entry per requested item: `{dataPoint}` or `{error}`.',
                additionalProperties: {
                  type: 'object',
                  properties: { dataPoint: { type: 'object', additionalProperties: true }, error: itemErrorSchema },
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
  description:
    'The same checks as delivery; being a single-vehicle call, the vehicle-level outcomes are HTTP errors: 400 VIN format invalid (901), 404 not activated in this subscription (903), 403 no active consent (905), 429 request limit for this vehicle (906, with Retry-After), 503 provider-side failure (907). Pass `nextCursor` back unchanged for the next, older page; it is null on the last. See docs/history.md.',
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
