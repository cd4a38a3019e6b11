import { errorResponses } from '../../http/schemas.ts';

export const ingestSchema = {
  summary: "Ingest a manufacturer's signed batch of raw records",
  description:
    "The body is the manufacturer's own batch format (see adapters/<manufacturer>/README.md), signed with HMAC-SHA256 in " +
    'the header its manifest names. 202 only once every record is durably queued; 503 with Retry-After when the queue is down.',
  tags: ['ingest'],
  params: {
    type: 'object',
    properties: { manufacturer: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,39}$' } },
    required: ['manufacturer'],
  },
  response: {
    202: {
      type: 'object',
      properties: { accepted: { type: 'integer', description: 'Records queued for harmonization.' } },
      required: ['accepted'],
    },
    ...errorResponses(400, 401, 404, 413, 415, 503),
  },
} as const;
