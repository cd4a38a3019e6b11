/**
 * The JSON Schema (draft-04) of a catalog file itself: the spec 2.1 fields plus
 * `deliveryMethod`, `version` and `updatedAt` (api-contract section 3). The payload schema
 * inside (`schema`) is checked separately by compiling it, so here it only has to be an
 * object describing an object payload (spec 2.1: every payload is a JSON object).
 */
export const entryFileSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  type: 'object',
  properties: {
    technicalName: { type: 'string', pattern: '^[a-z0-9]+$' },
    name: { type: 'string', minLength: 1 },
    description: { type: 'string', minLength: 1 },
    lifecycleStatus: { type: 'string', enum: ['PUBLISHED'] },
    type: { type: 'string', enum: ['IN_VEHICLE'] },
    personalData: { type: 'boolean', enum: [false] },
    event: { type: 'boolean', enum: [true] },
    deliveryMethod: { type: 'string', enum: ['pull', 'push'] },
    version: { type: 'integer', minimum: 1 },
    updatedAt: { type: 'string', format: 'date-time' },
    schema: {
      type: 'object',
      properties: { type: { type: 'string', enum: ['object'] } },
      required: ['type'],
    },
  },
  required: [
    'technicalName',
    'name',
    'description',
    'lifecycleStatus',
    'type',
    'personalData',
    'deliveryMethod',
    'version',
    'updatedAt',
    'schema',
  ],
  additionalProperties: false,
} as const;
