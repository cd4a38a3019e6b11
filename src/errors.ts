/**
 * The catalogue of errors the HTTP API answers with. Each has its HTTP status and its
 * `reasonText`; the error handler (src/http/error-handler.ts) turns them into the contract's
 * error body `{reasonCode, reasonText, url, method}` (api-contract section 1).
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reasonText: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(reasonText);
    this.name = 'ApiError';
  }
}

export const apiErrors = {
  missingHeader: (header: 'X-Api-Key' | 'X-Subscription-Id') =>
    new ApiError(400, `Bad request, mandatory header parameter ${header} is missing.`),
  emptyList: (what: 'Vehicles' | 'DataItems') => new ApiError(400, `Bad request, please provide a non empty list of ${what}.`),
  unsupportedVersion: (version: string) => new ApiError(400, `Bad request, unsupported api version ${version}.`),
  itemsNotCovered: (items: string[]) =>
    new ApiError(400, `Items ${items.join(',')} are not covered by subscription or incorrect names provided.`),
  tooManyVehicles: (max: number) => new ApiError(400, `Bad request, maximum number of vehicles ${max} exceeded.`),
  subscriptionNotFound: () => new ApiError(400, 'Bad request, subscription not found.'),
  badRequest: (text: string) => new ApiError(400, `Bad request, ${text}`),
  invalidApiKey: () => new ApiError(401, 'Unauthorized request, invalid API key.'),
  forbidden: (text: string) => new ApiError(403, text),
  notFound: (text = 'Resource not found.') => new ApiError(404, text),
  conflict: (text: string) => new ApiError(409, text),
  payloadTooLarge: (limit: number) => new ApiError(413, `Request body larger than ${limit} bytes.`),
  tooManyRecords: (count: number, max: number) =>
    new ApiError(413, `Payload too large, ${count} records in one request; at most ${max} are accepted per request, send the rest in further requests.`),
  unsupportedMediaType: () => new ApiError(415, 'Unsupported media type, use application/json.'),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(429, 'Request limit exceeded for this plan.', { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) }),
  internal: () => new ApiError(500, 'Internal service failure occured. Please try again later.'),
  unavailable: (retryAfterSeconds: number, text = 'Service temporarily unavailable. Please try again later.') =>
    new ApiError(503, text, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) }),
} as const;
