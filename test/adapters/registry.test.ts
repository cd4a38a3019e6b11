import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdapterLoadError, loadAdapterRegistry } from '../../src/adapters/registry.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { loadConfig } from '../../src/config.ts';
import { manufacturerAuth } from '../../src/consent/manufacturer-auth.ts';
import { defaultPaths } from '../../src/paths.ts';
import { copyProject } from '../pipeline/harness.ts';

const catalogItems = async () => new Set((await loadCatalog(defaultPaths().catalog)).list().map((e) => e.technicalName));

describe('adapter registry', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  afterEach(() => project?.cleanup());

  const load = async () => loadAdapterRegistry(project!.paths.adapters, await catalogItems(), { mappingsDir: project!.paths.mappings });
  const manifestFile = (id: string) => join(project!.paths.adapters, id, 'manifest.json');
  const editManifest = (id: string, edit: (m: Record<string, unknown>) => void) => {
    const m = JSON.parse(readFileSync(manifestFile(id), 'utf8')) as Record<string, unknown>;
    edit(m);
    writeFileSync(manifestFile(id), JSON.stringify(m));
  };

  /** A second MQTT manufacturer `acme`: a copy of virtual with its own prefix, topics and login. */
  const addAcme = (edit: (m: Record<string, unknown>) => void = () => {}) => {
    cpSync(join(project!.paths.adapters, 'virtual'), join(project!.paths.adapters, 'acme'), { recursive: true });
    cpSync(join(project!.paths.mappings, 'virtual'), join(project!.paths.mappings, 'acme'), { recursive: true });
    editManifest('acme', (m) => {
      Object.assign(m, { id: 'acme', vinPrefixes: ['ACM'] });
      Object.assign(m.transport as Record<string, unknown>, { topics: ['acme/v1/+/telemetry', 'acme/v1/+/event'], username: 'acme' });
      edit(m);
    });
  };
  const transportOf = (m: Record<string, unknown>) => m.transport as Record<string, unknown>;
  const authOf = (m: Record<string, unknown>) => m.authorization as Record<string, unknown>;
  const loadError = async () => {
    const err = await load().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterLoadError);
    return (err as Error).message;
  };

  it('discovers every adapter folder, compiles its mappings once, and finds the adapter of a VIN', async () => {
    project = copyProject();
    const reg = await load();
    // Contains, not equals: adding a manufacturer folder must not break this test.
    expect(reg.list().map((a) => a.manifest.id)).toEqual(expect.arrayContaining(['borealis', 'virtual']));
    expect([...reg.get('virtual')!.mappings.keys()].sort()).toEqual(['event', 'telemetry']);
    expect(reg.get('borealis')!.mappings.get('incident')!.version).toMatch(/^incident\.jsonata@[0-9a-f]{12}$/);
    expect(reg.forVin('V1RTUALV1N0000001')?.manifest.id).toBe('virtual');
    expect(reg.forVin('BRLAU1EV0N1000001')?.manifest.id).toBe('borealis');
    expect(reg.forVin('KESTRELV1N0000001')?.manifest.id).toBe('kestrel');
    expect(reg.forVin('WVWZZZ1JZXW000001')).toBeUndefined();
  });

  it('lets the longest VIN prefix win', async () => {
    project = copyProject();
    const dir = join(project.paths.adapters, 'borealis-eu');
    const mappings = join(project.paths.mappings, 'borealis-eu');
    cpSync(join(project.paths.adapters, 'borealis'), dir, { recursive: true });
    cpSync(join(project.paths.mappings, 'borealis'), mappings, { recursive: true });
    editManifest('borealis-eu', (m) => Object.assign(m, { id: 'borealis-eu', vinPrefixes: ['BRLE'] }));
    const reg = await load();
    expect(reg.list().map((a) => a.manifest.id)).toEqual(expect.arrayContaining(['borealis', 'borealis-eu', 'virtual']));
    expect(reg.forVin('BRLEU1EV0N1000001')?.manifest.id).toBe('borealis-eu');
    expect(reg.forVin('BRLAU1EV0N1000001')?.manifest.id).toBe('borealis');
  });

  it('takes the scope a withdrawal asks for from the manifest, vehicle:verify when it names none', async () => {
    project = copyProject();
    editManifest('borealis', (m) => ((m.authorization as Record<string, unknown>).verifyScope = 'urn:borealis:owner-check'));
    const reg = await load();
    const config = loadConfig({});
    expect(manufacturerAuth(config, reg.get('borealis')!).verifyScope).toBe('urn:borealis:owner-check');
    expect(manufacturerAuth(config, reg.get('virtual')!).verifyScope).toBe('vehicle:verify');
  });

  it('accepts a second MQTT manufacturer with its own login and topics, and https or loopback-http OAuth endpoints', async () => {
    project = copyProject();
    addAcme((m) =>
      Object.assign(authOf(m), {
        issuer: 'https://auth.acme.example',
        authorizationEndpoint: 'https://auth.acme.example/oauth2/authorize',
        tokenEndpoint: 'http://localhost:8081/oauth2/token',
        clientSecretEnv: 'OAUTH_CLIENT_SECRET_ACME',
      }),
    );
    const reg = await load();
    expect(reg.get('acme')?.manifest.transport).toMatchObject({ kind: 'mqtt', username: 'acme' });
  });

  // Two manifests that would take each other's login or messages: both files are named.
  const conflicts: [string, () => void, RegExp][] = [
    [
      'two MQTT manufacturers with one broker username',
      () => addAcme((m) => (transportOf(m).username = 'virtual')),
      /virtual\/manifest\.json: transport\.username "virtual" is already the broker login of .*acme\/manifest\.json/,
    ],
    [
      'topic filters of two manufacturers that match one topic',
      () => addAcme((m) => (transportOf(m).topics = ['+/v1/+/telemetry'])),
      /virtual\/manifest\.json: topic filter "virtual\/v1\/\+\/telemetry" overlaps "\+\/v1\/\+\/telemetry" of .*acme\/manifest\.json/,
    ],
  ];
  for (const [what, breakIt, message] of conflicts) {
    it(`stops the start on ${what}, naming both manifests`, async () => {
      project = copyProject();
      breakIt();
      expect(await loadError()).toMatch(message);
    });
  }

  it('lets the topic filters of two manufacturers differ in one literal level', async () => {
    project = copyProject();
    addAcme((m) => (transportOf(m).topics = ['+/v2/+/telemetry', '+/v2/+/event']));
    await expect(load()).resolves.toBeDefined();
  });

  it('names only the property at fault and only the transport its kind names', async () => {
    project = copyProject();
    editManifest('virtual', (m) => {
      const t = transportOf(m);
      t.usernme = t.username;
      delete t.username;
    });
    const message = await loadError();
    expect(message).toMatch(/\/transport must have required property 'username'/);
    expect(message).toMatch(/\/transport must NOT have additional properties: usernme/);
    // Nothing about the HTTP transport's fields, nor the oneOf that wrapped both.
    expect(message).not.toMatch(/signatureHeader|recordsField|typeField|oneOf/);
    // Each line once.
    const lines = message.slice(message.indexOf('schema: ') + 8).split('; ');
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('names the allowed kinds when the transport kind is unknown', async () => {
    project = copyProject();
    editManifest('virtual', (m) => (transportOf(m).kind = 'amqp'));
    const message = await loadError();
    expect(message).toMatch(/\/transport\/kind must be equal to one of the allowed values: mqtt, http, poll/);
    expect(message).not.toMatch(/signatureHeader|oneOf/);
  });

  it('accepts a polled manufacturer whose API is outside, with the variable naming its secret', async () => {
    project = copyProject();
    editManifest('kestrel', (m) =>
      Object.assign(transportOf(m), { apiBaseUrl: 'https://api.kestrel.example/v1', tokenEndpoint: 'https://auth.kestrel.example/oauth2/token', secretEnv: 'KESTREL_API_SECRET' }),
    );
    const reg = await load();
    expect(reg.get('kestrel')?.manifest.transport).toMatchObject({ kind: 'poll', apiBaseUrl: 'https://api.kestrel.example/v1', messageType: 'signals' });
  });

  const brokenPoll: [string, Record<string, unknown>, RegExp][] = [
    ['a page message type without a mapping', { messageType: 'status' }, /transport\.messageType "status" has no mapping/],
    ['an API path outside its own simulated wing', { apiBaseUrl: '/admin/v1' }, /transport\.apiBaseUrl is a path on this service, so it must be under \/oem\/kestrel\//],
    ['a plain http API', { apiBaseUrl: 'http://api.kestrel.example/v1' }, /transport\.apiBaseUrl must be an https URL/],
    ['an API base ending in a slash', { apiBaseUrl: '/oem/kestrel/api/v1/' }, /transport\.apiBaseUrl must end without "\/"/],
    ['an outside token endpoint without secretEnv', { tokenEndpoint: 'https://auth.kestrel.example/token', secretEnv: undefined }, /transport\.secretEnv is required when transport\.tokenEndpoint is an absolute URL/],
    ['a page path without {vin}', { pagePath: '/vehicles/signals' }, /\/transport\/pagePath must match pattern/],
    ['a poll interval under 5 s', { intervalS: 1 }, /\/transport\/intervalS must be >= 5/],
    ['no request rate', { maxRequestsPerS: 0 }, /\/transport\/maxRequestsPerS must be > 0/],
    ['an MQTT field on a polled transport', { topics: ['kestrel/v1/+/signals'] }, /\/transport must NOT have additional properties: topics/],
  ];
  for (const [what, change, message] of brokenPoll) {
    it(`stops the start on a poll transport with ${what}, naming the file`, async () => {
      project = copyProject();
      editManifest('kestrel', (m) => {
        const t = transportOf(m);
        for (const [k, v] of Object.entries(change)) v === undefined ? delete t[k] : (t[k] = v);
      });
      const text = await loadError();
      expect(text).toMatch(/kestrel\/manifest\.json: /);
      expect(text).toMatch(message);
    });
  }

  const broken: [string, (p: NonNullable<typeof project>) => void, RegExp][] = [
    [
      'an MQTT manufacturer in callback mode (the callback is signed like HTTP ingest)',
      () => editManifest('virtual', (m) => (m.activation = { mode: 'callback' })),
      /virtual\/manifest\.json: activation\.mode "callback" needs transport\.kind "http"/,
    ],
    ['a polled manufacturer in callback mode', () => editManifest('kestrel', (m) => (m.activation = { mode: 'callback' })), /kestrel\/manifest\.json: activation\.mode "callback" needs transport\.kind "http"/],
    ['a plain http OAuth endpoint', () => editManifest('borealis', (m) => (authOf(m).tokenEndpoint = 'http://auth.borealis.example/token')), /borealis\/manifest\.json: authorization\.tokenEndpoint must be an https URL/],
    ['a scheme-less OAuth endpoint', () => editManifest('borealis', (m) => (authOf(m).authorizationEndpoint = 'auth.borealis.example/authorize')), /borealis\/manifest\.json: authorization\.authorizationEndpoint must be an https URL or an absolute path/],
    ['a scheme-less OAuth issuer', () => editManifest('virtual', (m) => (authOf(m).issuer = 'oem/virtual')), /virtual\/manifest\.json: authorization\.issuer must be an https URL or an absolute path/],
    [
      'an outside token endpoint without clientSecretEnv',
      () =>
        editManifest('virtual', (m) =>
          Object.assign(authOf(m), { issuer: 'https://auth.virtual.example', authorizationEndpoint: 'https://auth.virtual.example/authorize', tokenEndpoint: 'https://auth.virtual.example/token' }),
        ),
      /virtual\/manifest\.json: authorization\.clientSecretEnv is required/,
    ],
    ['a manifest that is not JSON', (p) => writeFileSync(join(p.paths.adapters, 'borealis', 'manifest.json'), '{ nope'), /borealis\/manifest\.json: is not valid JSON/],
    ['a missing manifest', (p) => rmSync(join(p.paths.adapters, 'borealis', 'manifest.json')), /borealis\/manifest\.json: is missing/],
    ['a manifest without transport', () => editManifest('borealis', (m) => delete m.transport), /borealis\/manifest\.json: does not match the manifest schema: .*transport/],
    ['an id that is not the folder name', () => editManifest('borealis', (m) => (m.id = 'boreal')), /borealis\/manifest\.json: id "boreal" differs/],
    ['an item not in the catalog', () => editManifest('borealis', (m) => (m.items = ['mileage', 'warpdrive'])), /borealis\/manifest\.json: items not in the catalog: warpdrive/],
    ['a VIN prefix claimed twice', () => editManifest('virtual', (m) => (m.vinPrefixes = ['V1RTUALV1N', 'BRL'])), /virtual\/manifest\.json: VIN prefix BRL is claimed by "borealis" too/],
    ['a topic whose message type has no mapping', () => editManifest('virtual', (m) => ((m.transport as { topics: string[] }).topics.push('virtual/v1/+/status'))), /virtual\/manifest\.json: topics end in message types without a mapping: status/],
    ['a missing mapping file', (p) => rmSync(join(p.paths.mappings, 'borealis', 'incident.jsonata')), /borealis\/manifest\.json: message type "incident": mapping .*incident\.jsonata does not compile: cannot be read/],
    ['a verify scope that is not one OAuth scope token', () => editManifest('borealis', (m) => ((m.authorization as Record<string, unknown>).verifyScope = 'vehicle verify')), /borealis\/manifest\.json: does not match the manifest schema: .*verifyScope/],
    ['a mapping that does not compile', (p) => writeFileSync(join(p.paths.mappings, 'virtual', 'event.jsonata'), '{ "vin": vin, '), /virtual\/manifest\.json: message type "event": mapping .*event\.jsonata does not compile: .*at character/],
  ];
  for (const [what, breakIt, message] of broken) {
    it(`stops the start on ${what}, naming the file`, async () => {
      project = copyProject();
      breakIt(project);
      const err = await load().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AdapterLoadError);
      expect((err as Error).message).toMatch(message);
    });
  }
});
