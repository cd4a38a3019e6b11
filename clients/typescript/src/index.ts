export { createClient, CvdApiError, CvdClient, type ClientOptions } from './client.js';
export { fetchWithRetry, retryAfterMs, type RetryOptions } from './retry.js';
export type { ConsentRevokedNotice, ErrorBody, VehicleDataErasedNotice, VehicleDataPush, WebhookPayload } from './types.js';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhook.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
