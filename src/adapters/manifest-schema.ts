import { TRANSPORT_KINDS } from '../transports/kinds.ts';

/** JSON Schema (draft-07, Ajv's default) of adapters/<id>/manifest.json. */
export const manifestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'vinPrefixes', 'transport', 'items', 'messageTypes', 'authorization', 'activation'],
  properties: {
    $schema: { type: 'string' },
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,39}$' },
    name: { type: 'string', minLength: 1 },
    vinPrefixes: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', pattern: '^[A-HJ-NPR-Z0-9]{3,16}$' },
    },
    // The discriminators make Ajv check only the branch `kind` (`mode`) names, so a typo in an
    // MQTT transport is reported against the MQTT fields, not as missing HTTP ones as well.
    transport: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { enum: TRANSPORT_KINDS.map((k) => k.kind) } },
      discriminator: { propertyName: 'kind' },
      // Each kind's own schema, in its folder (src/transports/<kind>/kind.ts).
      oneOf: TRANSPORT_KINDS.map((k) => k.schema),
    },
    items: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } },
    messageTypes: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^[a-z][a-z0-9-]*$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['mapping'],
        properties: {
          mapping: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*\\.jsonata$' },
          push: { type: 'boolean' },
        },
      },
    },
    authorization: {
      type: 'object',
      additionalProperties: false,
      required: ['issuer', 'authorizationEndpoint', 'tokenEndpoint', 'clientId'],
      properties: {
        // https URLs or paths on this service: checked with a readable message in ./manifest-rules.ts.
        issuer: { type: 'string', minLength: 1 },
        authorizationEndpoint: { type: 'string', minLength: 1 },
        tokenEndpoint: { type: 'string', minLength: 1 },
        clientId: { type: 'string', minLength: 1 },
        clientSecretEnv: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
        // One OAuth scope token (RFC 6749 section 3.3: printable ASCII but space, " and \).
        verifyScope: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
      },
    },
    invalidItems: { enum: ['quarantine-message', 'quarantine-items'] },
    activation: {
      type: 'object',
      required: ['mode'],
      properties: { mode: { enum: ['auto', 'callback'] } },
      discriminator: { propertyName: 'mode' },
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['mode'],
          properties: { mode: { const: 'auto' }, delayMs: { type: 'integer', minimum: 0 } },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['mode'],
          properties: { mode: { const: 'callback' } },
        },
      ],
    },
  },
} as const;
