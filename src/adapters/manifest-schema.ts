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
      properties: { kind: { enum: ['mqtt', 'http', 'poll'] } },
      discriminator: { propertyName: 'kind' },
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'topics', 'username'],
          properties: {
            kind: { const: 'mqtt' },
            topics: {
              type: 'array',
              minItems: 1,
              // A filter with a literal last level (the message type); `+` only for whole levels.
              items: { type: 'string', pattern: '^([A-Za-z0-9_-]+|\\+)(/([A-Za-z0-9_-]+|\\+))*/[A-Za-z0-9_-]+$' },
            },
            username: { type: 'string', minLength: 1 },
            passwordEnv: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
            // The topic level (from 0) that names the vehicle; a `+` in every filter (./manifest-rules.ts).
            vinTopicLevel: { type: 'integer', minimum: 0, maximum: 31 },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'signatureHeader', 'recordsField', 'typeField'],
          properties: {
            kind: { const: 'http' },
            signatureHeader: { type: 'string', pattern: '^[A-Za-z0-9-]+$' },
            recordsField: { type: 'string', minLength: 1 },
            typeField: { type: 'string', minLength: 1 },
            secretEnv: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
            toleranceS: { type: 'integer', minimum: 1, maximum: 3600 },
          },
        },
        {
          // Field by field in src/adapters/manifest.ts (PollTransport); URLs checked in ./manifest-rules.ts.
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'apiBaseUrl', 'pagePath', 'tokenEndpoint', 'clientId', 'messageType'],
          properties: {
            kind: { const: 'poll' },
            apiBaseUrl: { type: 'string', minLength: 1 },
            // A path of the API with the vehicle's place marked, e.g. /vehicles/{vin}/signals.
            pagePath: { type: 'string', pattern: '^/[A-Za-z0-9._~/-]*\\{vin\\}[A-Za-z0-9._~/-]*$' },
            tokenEndpoint: { type: 'string', minLength: 1 },
            clientId: { type: 'string', minLength: 1 },
            secretEnv: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
            // Scope tokens (RFC 6749 section 3.3) separated by single spaces.
            scope: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+( [\\x21\\x23-\\x5B\\x5D-\\x7E]+)*$' },
            messageType: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
            intervalS: { type: 'integer', minimum: 5, maximum: 86400 },
            pageSize: { type: 'integer', minimum: 1, maximum: 1000 },
            maxRequestsPerS: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
            cursorParam: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
            pageSizeParam: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
            nextCursorField: { type: 'string', minLength: 1 },
          },
        },
      ],
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
