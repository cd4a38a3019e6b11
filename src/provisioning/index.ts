/**
 * Provisioning of consumers, API keys and subscriptions: plain functions over the store, used
 * by the admin API (src/routes/admin) and the CLI (src/cli) alike. Errors are {@link ApiError}s
 * carrying the HTTP status the admin API answers with.
 */
export type { ProvisioningDeps } from './deps.ts';
export { addApiKey, createConsumer, getConsumer, listApiKeys, listConsumers, revokeApiKey } from './consumers.ts';
export type { ApiKeyView, IssuedApiKey } from './consumers.ts';
export { createSubscription, getSubscription, listSubscriptions } from './subscriptions.ts';
export type { CreateSubscriptionInput } from './subscriptions.ts';
export { checkRedirectUrls, redirectUrlProblem } from './redirect-urls.ts';
