/**
 * JSON schemas shared by the route plugins, so that every error response appears in the
 * OpenAPI document with the contract's error body (api-contract section 1).
 */
export const errorBodySchema = {
  type: 'object',
  description: 'The error body of every failed request.',
  properties: {
    reasonCode: { type: 'string', description: '`CAR.<status>` (the confirmation call: `car.<status>`).' },
    reasonText: { type: 'string' },
    url: { type: 'string', description: 'The request path, without the query string.' },
    method: { type: 'string' },
  },
  required: ['reasonCode', 'reasonText', 'url', 'method'],
} as const;

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal failure',
  503: 'Unavailable',
};

/** Response schemas for the given error statuses, to spread into a route's `response`. */
export function errorResponses(...statuses: number[]): Record<number, Omit<typeof errorBodySchema, 'description'> & { description: string }> {
  return Object.fromEntries(statuses.map((s) => [s, { ...errorBodySchema, description: DESCRIPTIONS[s] ?? 'Error' }]));
}

/** OpenAPI security requirement of the data API: both headers, `x-api-key` and `X-Subscription-Id`. */
export const consumerSecurity = [{ apiKey: [], subscriptionId: [] }];
