import { randomUUID } from 'node:crypto';
import { newApiKey } from '../auth/api-keys.ts';
import { apiErrors } from '../errors.ts';
import type { ApiKeyRecord, Consumer } from '../store/contract.ts';
import type { ProvisioningDeps } from './deps.ts';

/** An API key as it may be shown after creation: never the key, never its hash. */
export interface ApiKeyView {
  keyId: string;
  displayPrefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** The answer to creating a key: the clear key, shown this once and never again. */
export interface IssuedApiKey {
  consumerId: string;
  keyId: string;
  apiKey: string;
  displayPrefix: string;
  createdAt: string;
}

const MAX_NAME = 200;

function checkName(name: unknown): string {
  if (typeof name !== 'string') throw apiErrors.badRequest('name must be a string.');
  const trimmed = name.trim();
  // Control characters in a name end up in logs and terminal output of the CLI.
  if (trimmed.length === 0 || trimmed.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw apiErrors.badRequest(`name must be 1 to ${MAX_NAME} printable characters.`);
  }
  return trimmed;
}

export function keyView(k: ApiKeyRecord): ApiKeyView {
  return { keyId: k.keyId, displayPrefix: k.displayPrefix, createdAt: k.createdAt, revokedAt: k.revokedAt };
}

/** The consumer, or a 404 naming what was not found. */
export async function getConsumer(deps: Pick<ProvisioningDeps, 'store'>, consumerId: string): Promise<Consumer> {
  const consumer = await deps.store.consumers.get(consumerId);
  if (!consumer) throw apiErrors.notFound('Consumer not found.');
  return consumer;
}

export async function listConsumers(deps: Pick<ProvisioningDeps, 'store'>): Promise<Consumer[]> {
  return deps.store.consumers.list();
}

/** A new consumer with its first API key (shown once: only its SHA-256 is stored). */
export async function createConsumer(
  deps: Pick<ProvisioningDeps, 'store' | 'clock'>,
  name: unknown,
): Promise<IssuedApiKey & { name: string }> {
  const consumer: Consumer = { consumerId: randomUUID(), name: checkName(name), createdAt: deps.clock.now().toISOString() };
  await deps.store.consumers.create(consumer);
  const key = await issueKey(deps, consumer.consumerId);
  return { ...key, name: consumer.name };
}

/** Rotation: a further key for the consumer. Its older keys keep working until revoked. */
export async function addApiKey(deps: Pick<ProvisioningDeps, 'store' | 'clock'>, consumerId: string): Promise<IssuedApiKey> {
  await getConsumer(deps, consumerId);
  return issueKey(deps, consumerId);
}

async function issueKey(deps: Pick<ProvisioningDeps, 'store' | 'clock'>, consumerId: string): Promise<IssuedApiKey> {
  const at = deps.clock.now();
  const { apiKey, record } = newApiKey(consumerId, at);
  await deps.store.consumers.addApiKey(record);
  await deps.store.audit.record({
    type: 'api_key.created',
    at: at.toISOString(),
    subject: record.keyId,
    details: { consumerId },
  });
  return { consumerId, keyId: record.keyId, apiKey, displayPrefix: record.displayPrefix, createdAt: record.createdAt };
}

export async function listApiKeys(deps: Pick<ProvisioningDeps, 'store'>, consumerId: string): Promise<ApiKeyView[]> {
  await getConsumer(deps, consumerId);
  return (await deps.store.consumers.listApiKeys(consumerId)).map(keyView);
}

/**
 * Revokes a key at once: the consumer auth hook reads the store on every request, so the
 * next request with this key gets 401. Revoking a revoked key again changes nothing
 * (idempotent, like HTTP DELETE); an unknown key is a 404.
 */
export async function revokeApiKey(
  deps: Pick<ProvisioningDeps, 'store' | 'clock'>,
  consumerId: string,
  keyId: string,
): Promise<{ key: ApiKeyView; revokedNow: boolean }> {
  await getConsumer(deps, consumerId);
  const at = deps.clock.now().toISOString();
  const revokedNow = await deps.store.consumers.revokeApiKey(consumerId, keyId, at);
  const key = (await deps.store.consumers.listApiKeys(consumerId)).find((k) => k.keyId === keyId);
  if (!key) throw apiErrors.notFound('API key not found.');
  if (revokedNow) {
    await deps.store.audit.record({ type: 'api_key.revoked', at, subject: keyId, details: { consumerId } });
  }
  return { key: keyView(key), revokedNow };
}
