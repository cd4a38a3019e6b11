import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, consumerWith, params, runFlow, startLiveApp, type LiveApp } from '../consent/harness.ts';
import { createTestServices } from '../helpers/services.ts';
import { copyProject } from '../pipeline/harness.ts';

/**
 * Adding a manufacturer is adding its two folders (adapters/<id>,
 * mappings/<id>). A third manufacturer whose manifest declares a simulated authorization server
 * at /oem/<id> gets one, and its consent flow runs end to end over real HTTP: portal, the
 * manufacturer's login page, its token endpoint, the callback. Nothing else in the project
 * names it.
 */
const VIN = 'AUR00000000000001';

function addAurora(project: ReturnType<typeof copyProject>): void {
  const adapter = join(project.paths.adapters, 'aurora');
  mkdirSync(adapter);
  writeFileSync(
    join(adapter, 'manifest.json'),
    JSON.stringify({
      id: 'aurora',
      name: 'Aurora Motors',
      vinPrefixes: ['AUR'],
      transport: { kind: 'http', signatureHeader: 'X-Aurora-Signature', recordsField: 'records', typeField: 'type' },
      items: ['mileage', 'crashseverity'],
      messageTypes: { status: { mapping: 'status.jsonata' } },
      authorization: { issuer: '/oem/aurora', authorizationEndpoint: '/oem/aurora/authorize', tokenEndpoint: '/oem/aurora/token', clientId: 'cvd-aurora' },
      activation: { mode: 'auto' },
    }),
  );
  const mappings = join(project.paths.mappings, 'aurora');
  mkdirSync(mappings);
  writeFileSync(join(mappings, 'status.jsonata'), '{ "vin": vin, "items": { "mileage": { "value": km, "unit": "km", "timestamp": at } } }\n');
}

describe('a third manufacturer, added as two folders', () => {
  let project: ReturnType<typeof copyProject>;
  let t: LiveApp;
  beforeAll(async () => {
    project = copyProject();
    addAurora(project);
    t = await startLiveApp({ paths: project.paths });
  });
  afterAll(async () => {
    await t?.cleanup();
    project?.cleanup();
  });

  it('gets its own simulated authorization server, and its consent flow runs to an active consent', async () => {
    expect(t.services.adapters.get('aurora')?.manifest.name).toBe('Aurora Motors');
    const c = await consumerWith(t, { dataItems: ['mileage', 'crashseverity'] });
    const { callback, consentId, callbackUrl } = await runFlow(t, c, new Browser(), { params: { vin: VIN } });
    // The manufacturer's server answered (login page, token) under its own issuer.
    expect(callbackUrl.startsWith(`${t.origin}/callback/aurora?`)).toBe(true);
    expect(params(callbackUrl).get('iss')).toBe(`${t.origin}/oem/aurora`);
    expect(callback.status).toBe(303);
    expect(params(callback.location).get('consent_id')).toBe(consentId);
    const consent = await t.services.store.consents.get(consentId);
    expect(consent?.manufacturer).toBe('aurora');
    expect(consent?.state).toBe('ACTIVE');
  });
});

describe('a manifest pointing at a hosted server where none would answer', () => {
  it('stops the start, naming the file and where the server must be', async () => {
    const project = copyProject();
    try {
      addAurora(project);
      const file = join(project.paths.adapters, 'aurora', 'manifest.json');
      const m = JSON.parse(readFileSync(file, 'utf8'));
      m.authorization = { issuer: '/auth/aurora', authorizationEndpoint: '/auth/aurora/authorize', tokenEndpoint: '/auth/aurora/token', clientId: 'cvd-aurora' };
      writeFileSync(file, JSON.stringify(m));
      await expect(createTestServices({ paths: project.paths })).rejects.toThrow(/aurora\/manifest\.json: authorization\.issuer must be "\/oem\/<name>"/);
      m.authorization = { issuer: '/oem/aurora', authorizationEndpoint: '/oem/aurora/login', tokenEndpoint: '/oem/aurora/token', clientId: 'cvd-aurora' };
      writeFileSync(file, JSON.stringify(m));
      await expect(createTestServices({ paths: project.paths })).rejects.toThrow(/authorization\.authorizationEndpoint must be "\/oem\/aurora\/authorize"/);
    } finally {
      project.cleanup();
    }
  });
});
