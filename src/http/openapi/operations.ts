/**
 * The name of every operation of the public OpenAPI document, keyed by
 * `METHOD path` as the document spells it. Kept in one table rather than in each route's schema
 * because the ids are a contract with generated clients (clients/typescript/): renaming one breaks
 * them, so they are reviewed together. `description` is given here only where the route's
 * schema has none; test/openapi/document.test.ts fails on an operation missing from this table.
 */
export interface OperationInfo {
  operationId: string;
  description?: string;
}

export const OPERATIONS: Record<string, OperationInfo> = {
  'GET /health': { operationId: 'getLiveness', description: 'Answers 200 while the process runs; orchestrators restart it otherwise. No dependency is checked.' },
  'GET /ready': { operationId: 'getReadiness', description: 'Answers 200 when the store, Redis and (where this process runs it) the MQTT broker are reachable, 503 naming what is not.' },
  'GET /catalog/v1/data-items': { operationId: 'listDataItems', description: 'Public, no key. Each entry has the spec 2.1 fields, the JSON Schema of its payload, `deliveryMethod` (`pull` or `push`), `version` and `updatedAt`.' },
  'GET /catalog/v1/data-items/{technicalName}': { operationId: 'getDataItem', description: 'Public, no key. 404 for a name the catalog does not know.' },
  'POST /admin/v1/consumers': { operationId: 'createConsumer', description: 'The API key is shown once, in this answer; only its hash is stored.' },
  'GET /catalog/v1/manufacturers': {
    operationId: 'listManufacturers',
    description: 'Public, no key. Every connected manufacturer with its VIN prefixes and the catalog items it supplies; a vehicle may supply fewer (GET /management/v1/vehicles/{vin}/capabilities).',
  },
  'GET /catalog/v1/manufacturers/{manufacturer}': { operationId: 'getManufacturer', description: 'Public, no key. 404 for an id no connected manufacturer has.' },
  'GET /admin/v1/consumers': { operationId: 'listConsumers', description: 'Every consumer with the number of its active API keys.' },
  'GET /admin/v1/consumers/{consumerId}': { operationId: 'getConsumer', description: 'One consumer; 404 for an unknown id.' },
  'POST /admin/v1/consumers/{consumerId}/api-keys': { operationId: 'createApiKey', description: 'The new key is shown once, in this answer. Older keys keep working until revoked.' },
  'GET /admin/v1/consumers/{consumerId}/api-keys': { operationId: 'listApiKeys', description: 'Key ids, prefixes and creation and revocation times; never the keys.' },
  'DELETE /admin/v1/consumers/{consumerId}/api-keys/{keyId}': { operationId: 'revokeApiKey', description: 'The key is refused from the next request on.' },
  'POST /admin/v1/subscriptions': { operationId: 'createSubscription' },
  'GET /admin/v1/subscriptions': { operationId: 'listSubscriptions', description: 'Every subscription, or those of one consumer (`consumerId`).' },
  'GET /admin/v1/subscriptions/{subscriptionId}': { operationId: 'getSubscription', description: 'One subscription; 404 for an unknown id.' },
  'GET /admin/v1/quarantine': { operationId: 'listQuarantine', description: 'Raw messages that could not be harmonized, with the reason code; filter by manufacturer, code and time, page with `cursor`.' },
  'GET /admin/v1/quarantine/{id}': { operationId: 'getQuarantined', description: 'The raw message as received, with every failure recorded for it.' },
  'POST /admin/v1/quarantine/reprocess': { operationId: 'reprocessQuarantine' },
  'GET /admin/v1/pipeline/failed-batches': { operationId: 'countFailedBatches', description: 'Batches that failed every attempt are kept; this counts them.' },
  'POST /admin/v1/pipeline/failed-batches/retry': { operationId: 'retryFailedBatches' },
  'POST /admin/v1/mappings/{manufacturer}/dry-run': { operationId: 'dryRunMapping' },
  'GET /admin/v1/data-points/{vin}/{item}/history': { operationId: 'getDataPointProvenance', description: 'For operators: the stored points newest first, each with the manufacturer, mapping version and reception time it came with.' },
  'PUT /admin/v1/oem/virtual/fault': { operationId: 'setVirtualOemFault', description: 'For demonstrations and tests: the virtual manufacturer’s token endpoint answers with the chosen failure until switched back to `none`.' },
  'GET /admin/v1/oem/virtual/fault': { operationId: 'getVirtualOemFault', description: 'The fault mode set with PUT (`none` when off).' },
  'DELETE /admin/v1/vehicles/{vin}/data': { operationId: 'eraseVehicleData' },
  'DELETE /admin/v1/subscriptions/{subscriptionId}/vehicles/{vin}/data': { operationId: 'eraseSubscriptionVehicleData' },
  'POST /api/consent/provisioning/confirmation/{code}': {
    operationId: 'confirmConsent',
    description: 'Spec 4.3: the consumer confirms it received the consent redirect, with the `code` from it. Errors use `car.<status>` and the path without `/api`, as the spec says.',
  },
  'GET /consent/v1/consents': { operationId: 'listConsents', description: 'Every consent process of the subscription (optionally of one `vin`), with its state and state history.' },
  'DELETE /consent/v1/consents/{consentId}': { operationId: 'revokeConsent', description: 'The consumer ends a consent itself; delivery answers CAR.VE.905 for the vehicle from the next request. No notice is sent (you know).' },
  'GET /consent/v1/erasures': { operationId: 'listErasures' },
  'PUT /management/v1/vehicles': { operationId: 'changeVehicles' },
  'GET /management/v1/vehicles': { operationId: 'listVehicles', description: 'Every VIN of the subscription with its status: PENDING_ACTIVATION, ACTIVATED, INCAPABLE, PENDING_DEACTIVATION or DEACTIVATED.' },
  'GET /management/v1/vehicles/{vin}': { operationId: 'getVehicle', description: '404 for a VIN that is not in the subscription (also when it is in another consumer’s).' },
  'GET /management/v1/vehicles/{vin}/capabilities': { operationId: 'getVehicleCapabilities' },
  'POST /management/v1/manufacturers/{manufacturer}/activation-callback': {
    operationId: 'activationCallback',
    description: 'Called by a manufacturer whose activations are confirmed by callback (e.g. borealis), signed with HMAC-SHA256 in the header its manifest names, like its HTTP ingest.',
  },
  'POST /delivery/v1/in-vehicle': { operationId: 'deliverInVehicle' },
  'GET /delivery/v1/history/{vin}/{item}': { operationId: 'getHistory' },
  'PUT /push/v1/webhook': { operationId: 'putWebhook' },
  'GET /push/v1/webhook': { operationId: 'getWebhook', description: 'The configuration without secrets, with its status (ENABLED or DISABLED and why).' },
  'DELETE /push/v1/webhook': { operationId: 'deleteWebhook' },
  'POST /push/v1/webhook/rotate-secret': { operationId: 'rotateWebhookSecret' },
  'POST /push/v1/webhook/test': { operationId: 'sendWebhookTestEvent' },
  'GET /push/v1/webhooks': { operationId: 'listWebhookEndpoints' },
  'PUT /push/v1/webhooks/{endpointId}': { operationId: 'putWebhookEndpoint' },
  'GET /push/v1/webhooks/{endpointId}': { operationId: 'getWebhookEndpoint' },
  'DELETE /push/v1/webhooks/{endpointId}': { operationId: 'deleteWebhookEndpoint' },
  'POST /push/v1/webhooks/{endpointId}/rotate-secret': { operationId: 'rotateWebhookEndpointSecret' },
  'POST /push/v1/webhooks/{endpointId}/test': { operationId: 'sendWebhookEndpointTestEvent' },
  'GET /push/v1/deliveries': { operationId: 'listDeliveries' },
  'POST /push/v1/deliveries/replay': { operationId: 'replayDeadDeliveries' },
  'POST /push/v1/deliveries/{transactionId}/replay': { operationId: 'replayDelivery' },
  'POST /ingest/v1/{manufacturer}': { operationId: 'ingestBatch' },
  'POST /sandbox/v1/vehicles/{vin}/events': { operationId: 'raiseSandboxEvent' },
};
