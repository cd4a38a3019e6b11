import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signBody } from '../../src/transports/http/signature.ts';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { sha256Hex } from '../../src/crypto.ts';
import { defaultPaths } from '../../src/paths.ts';
import { type Services } from '../../src/services.ts';
import type { ConsentRecord } from '../../src/store/contract.ts';
import { activeConsentRecord } from '../helpers/consents.ts';

const fixtures = join(defaultPaths().root, 'adapters', 'borealis', 'fixtures');

/** A Borealis fixture record with its VIN replaced (and, for incidents, a fresh incident time). */
export function borealisRecord(name: 'vehicle-status' | 'incident.collision', vin: string, shiftS = 0): Record<string, unknown> {
  const record = JSON.parse(readFileSync(join(fixtures, `borealis.${name}.json`), 'utf8')) as {
    vehicle: { vinNumber: string };
    incident?: { detectedAt: number };
    readings?: { capturedAt: number }[];
  };
  record.vehicle.vinNumber = vin;
  if (record.incident) record.incident.detectedAt += shiftS;
  for (const r of record.readings ?? []) r.capturedAt += shiftS;
  return record;
}

/** A record the incident mapping refuses (unknown kind): it ends in quarantine, VIN known. */
export function brokenRecord(vin: string): Record<string, unknown> {
  return { recordType: 'incident', vehicle: { vinNumber: vin, modelCode: 'AURORA-EV' }, incident: { incidentId: `bad-${vin}`, kind: 'METEOR', detectedAt: 1795601100 } };
}

/** A signed POST /ingest/v1/borealis request for these records. */
export function borealisBatch(services: Services, records: unknown[]) {
  const payload = JSON.stringify({ batchId: randomUUID(), records });
  const secret = adapterSecret(services.config, services.adapters.get('borealis')!);
  const signature = signBody(secret, Math.floor(services.clock.now().getTime() / 1000), payload);
  return {
    method: 'POST' as const,
    url: '/ingest/v1/borealis',
    headers: { 'content-type': 'application/json', 'x-borealis-signature': signature },
    payload,
  };
}

/** An ACTIVE consent with the personal data the portal collects and the flow's spent secrets. */
export async function seedConsent(services: Services, consumerId: string, subscriptionId: string, vin: string): Promise<ConsentRecord> {
  const items = ['accidentautomatic', 'mileage'];
  const record = activeConsentRecord(services.clock.now().toISOString(), {
    consumerId,
    subscriptionId,
    vin,
    manufacturer: 'borealis',
    dataItems: items,
    grantedItems: items,
    redirectUrl: 'https://app.example.com/cb',
    firstName: 'Erika',
    lastName: 'Mustermann',
    email: 'erika@example.com',
    oauthStateHash: sha256Hex(randomUUID()),
    pkceVerifierSealed: services.secrets.encrypt(randomUUID()),
    codeHash: sha256Hex(randomUUID()),
  });
  await services.store.consents.create(record);
  return record;
}

/** An ACTIVATED vehicle of the subscription. */
export async function seedActivation(services: Services, subscriptionId: string, vin: string): Promise<void> {
  const at = services.clock.now().toISOString();
  await services.store.vehicles.upsert({ subscriptionId, vin, manufacturer: 'borealis', status: 'ACTIVATED', createdAt: at, updatedAt: at });
}

/**
 * A webhook that takes events, watches `mileage` (so fan-out also writes update throttles) and
 * asks for erasure notices. Its URL is never called: no push worker runs, the jobs wait in the queue.
 */
export async function seedWebhook(services: Services, subscriptionId: string): Promise<void> {
  const at = services.clock.now().toISOString();
  await services.store.webhooks.put({
    subscriptionId,
    url: 'https://hooks.example.com/in',
    secrets: [{ sealed: services.secrets.encrypt(`whsec_${Buffer.from(randomUUID()).toString('base64')}`), createdAt: at, expiresAt: null }],
    authorizationSealed: null,
    items: ['mileage'],
    minIntervalSeconds: 60,
    notices: ['vehicle.data_erased'],
    status: 'ENABLED',
    disabledReason: null,
    failingSince: null,
    createdAt: at,
    updatedAt: at,
  });
}
