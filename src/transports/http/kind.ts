import type { TransportKind } from '../kind.ts';

/**
 * HTTP: batches are POSTed to `/ingest/v1/<id>` and signed with HMAC-SHA256 (./signature.ts).
 */
export interface HttpTransport {
  kind: 'http';
  /** Header carrying `t=<epoch s>,v1=<hex HMAC-SHA256>` of `${t}.${raw body}`. */
  signatureHeader: string;
  /** The batch envelope: the body's field holding the list of records, and each record's type field. */
  recordsField: string;
  typeField: string;
  /** Environment variable holding the signing secret; unset: derived from SECRET_KEY. */
  secretEnv?: string;
  /** Largest accepted clock skew of the signature timestamp (replay window), seconds. */
  toleranceS?: number;
}

/** The replay window of a signature when the manifest sets no `toleranceS`, seconds. */
export const DEFAULT_TOLERANCE_S = 300;

export const httpTransport: TransportKind<HttpTransport> = {
  kind: 'http',
  schema: {
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
  problems: () => [],
  secretEnv: (t) => t.secretEnv,
  credentials: (t, secret) => ({ signatureHeader: t.signatureHeader, secret }),
  callbackSignature: (t) => ({ header: t.signatureHeader, toleranceS: t.toleranceS ?? DEFAULT_TOLERANCE_S }),
};
