import { VEHICLE_STATUSES } from '../../store/contract.ts';
import { consumerSecurity, errorBodySchema } from '../../http/schemas.ts';

/**
 * Route schemas of vehicle management (api-contract section 5). The body schema checks only
 * shapes; the contract's own rules (action values, VIN format, at most 1000 VINs) are checked
 * in the handler so the 400 can name the offending VINs.
 */
export const MAX_VINS_PER_REQUEST = 1000;

const errorBody = errorBodySchema;
const security = consumerSecurity;

const vehicle = {
  type: 'object',
  properties: {
    vin: { type: 'string' },
    status: { type: 'string', enum: [...VEHICLE_STATUSES] },
    manufacturer: { type: ['string', 'null'], description: 'Adapter id of the manufacturer, null when no adapter claims the VIN.' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
  required: ['vin', 'status', 'manufacturer', 'updatedAt'],
} as const;

const errors = { 400: errorBody, 401: errorBody, 429: errorBody, 503: errorBody };

export const putSchema = {
  summary: 'Activate or deactivate vehicles in the subscription',
  description:
    'Activation is asynchronous: the answer shows each VIN as it is now (usually PENDING_ACTIVATION); poll GET to see ACTIVATED or INCAPABLE. Deactivation stops delivery at once.',
  tags: ['management'],
  security,
  body: {
    type: 'object',
    // A missing `vins` is answered like an empty one, with the contract's text.
    required: ['action'],
    properties: {
      action: { type: 'string', description: '`activate` or `deactivate`.' },
      vins: { type: 'array', items: { type: 'string' }, description: `1 to ${MAX_VINS_PER_REQUEST} VINs.` },
    },
  },
  response: {
    202: {
      type: 'array',
      items: { type: 'object', properties: { vin: { type: 'string' }, status: vehicle.properties.status }, required: ['vin', 'status'] },
    },
    ...errors,
  },
} as const;

/** What the bare list call answers (a client written before paging keeps working): its first page. */
export const FIRST_PAGE_SIZE = 1000;

export const listSchema = {
  summary: "The subscription's vehicles and their activation status",
  tags: ['management'],
  security,
  querystring: {
    type: 'object',
    properties: {
      limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: 'Page size, 1 to 1000 (default 100). Given (or with `cursor`), the answer is a page `{items, nextCursor}`.' },
      cursor: { type: 'string', maxLength: 500, description: 'The `nextCursor` of the previous page.' },
    },
  },
  response: {
    200: {
      description: `Without \`limit\` and \`cursor\`: an array of the first ${FIRST_PAGE_SIZE} vehicles, as before paging existed, with a \`Link: <...>; rel="next"\` header when more follow. With either: a page \`{items, nextCursor}\`, like the other lists.`,
      anyOf: [
        { type: 'array', items: vehicle },
        {
          type: 'object',
          properties: { items: { type: 'array', items: vehicle }, nextCursor: { type: ['string', 'null'], description: 'Pass it back as `cursor` for the next page; null on the last.' } },
          required: ['items', 'nextCursor'],
        },
      ],
    },
    ...errors,
  },
} as const;

export const getSchema = {
  summary: "One vehicle's activation status in the subscription",
  tags: ['management'],
  security,
  params: { type: 'object', properties: { vin: { type: 'string' } }, required: ['vin'] },
  response: { 200: vehicle, 404: errorBody, ...errors },
} as const;

const deliveryError = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' } },
  required: ['code', 'message'],
} as const;

export const capabilitiesSchema = {
  summary: 'Which of the subscription’s data items one vehicle supplies, and which it has sent',
  description:
    'For each data item of the subscription: `supplied`, whether the vehicle can send it at all (its manufacturer supplies the item, and says this vehicle has it: a combustion car has no `sochighlevel`); delivery answers an item that is not supplied with `CAR.VE.910`, one that is supplied but has no data yet with `CAR.VE.908`. ' +
    'What the vehicle has, `received` and `lastTimestamp` follow the rules of delivery: only for an ACTIVATED vehicle with an active consent; otherwise `supplied` is what the manufacturer supplies in general, and `receivedUnknown` says why, with the vehicle-level code delivery would answer. 404 for a VIN that is not in the subscription. ' +
    'GET /catalog/v1/manufacturers lists what each manufacturer supplies, before any vehicle is activated.',
  tags: ['management'],
  security,
  params: { type: 'object', properties: { vin: { type: 'string' } }, required: ['vin'] },
  response: {
    200: {
      type: 'object',
      properties: {
        vin: { type: 'string' },
        manufacturer: vehicle.properties.manufacturer,
        status: vehicle.properties.status,
        dataItems: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              technicalName: { type: 'string' },
              deliveryMethod: { type: 'string', enum: ['pull', 'push'] },
              supplied: { type: 'boolean' },
              received: { type: 'boolean', description: 'Data of the item has arrived for the vehicle. Absent when `receivedUnknown` is given.' },
              lastTimestamp: { type: 'string', format: 'date-time', description: 'Time of the latest point (the vehicle’s time, else reception), when `received`.' },
            },
            required: ['technicalName', 'deliveryMethod', 'supplied'],
          },
        },
        receivedUnknown: { ...deliveryError, description: 'Why `received` is not given: CAR.VE.903 (not ACTIVATED), CAR.VE.905 (no active consent) or CAR.VE.907 (provider-side failure).' },
      },
      required: ['vin', 'manufacturer', 'status', 'dataItems'],
    },
    404: errorBody,
    ...errors,
  },
} as const;
