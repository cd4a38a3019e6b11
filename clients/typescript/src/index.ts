export { createClient, CvdApiError, CvdClient, type ClientOptions } from './client.ts';
export { fetchWithRetry, retryAfterMs, type RetryOptions } from './retry.ts';
export type { ConsentRevokedNotice, ErrorBody, VehicleDataErasedNotice, VehicleDataPush, WebhookPayload } from './types.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhook.ts';
export type { components, operations, paths, webhooks } from './generated/openapi.ts';
