/**
 * Route schemas of the catalog API (api-contract section 3). They document the API in the
 * OpenAPI document and let Fastify serialize responses fast. The payload `schema` is left a
 * free object: it is a JSON Schema document, described by the draft-04 meta-schema, not here.
 */
export const catalogEntrySchema = {
  type: 'object',
  properties: {
    technicalName: { type: 'string', description: 'Identifier used in delivery requests (`dataItems`).' },
    name: { type: 'string', description: 'Display name.' },
    description: { type: 'string' },
    lifecycleStatus: { type: 'string', enum: ['PUBLISHED'] },
    type: { type: 'string', enum: ['IN_VEHICLE'] },
    personalData: { type: 'boolean' },
    event: { type: 'boolean', description: 'Present and true only on push items that are events.' },
    deliveryMethod: { type: 'string', enum: ['pull', 'push'] },
    version: { type: 'integer', description: 'Raised on every change of the entry.' },
    updatedAt: { type: 'string', format: 'date-time', description: 'When the entry last changed.' },
    schema: { type: 'object', additionalProperties: true, description: 'JSON Schema draft-04 of the payload.' },
  },
  required: ['technicalName', 'name', 'description', 'lifecycleStatus', 'type', 'personalData', 'deliveryMethod', 'version', 'updatedAt', 'schema'],
} as const;

export const errorBodySchema = {
  type: 'object',
  description: 'The error body of api-contract section 1.',
  properties: {
    reasonCode: { type: 'string', examples: ['CAR.400'] },
    reasonText: { type: 'string' },
    url: { type: 'string' },
    method: { type: 'string' },
  },
  required: ['reasonCode', 'reasonText', 'url', 'method'],
} as const;

export const listSchema = {
  summary: 'List the data items of the catalog',
  tags: ['catalog'],
  querystring: {
    type: 'object',
    properties: {
      deliveryMethod: { type: 'string', description: '`pull` or `push`: only items delivered that way.' },
      updatedSince: {
        type: 'string',
        description: 'ISO 8601 instant (e.g. `2024-06-01T00:00:00Z`) or date: only entries whose `updatedAt` is at or after it.',
      },
    },
  },
  response: { 200: { type: 'array', items: catalogEntrySchema }, 400: errorBodySchema },
} as const;

export const getSchema = {
  summary: 'One data item of the catalog',
  tags: ['catalog'],
  params: { type: 'object', properties: { technicalName: { type: 'string' } }, required: ['technicalName'] },
  response: { 200: catalogEntrySchema, 404: errorBodySchema },
} as const;
