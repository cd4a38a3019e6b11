import { displayName, envSuffix, type ScaffoldPlan } from './plan.ts';

/**
 * The transport section of a scaffolded manifest. Everything points at this service: the
 * embedded broker, its own HTTP ingest, or a simulated API under /oem/<id>/, so the result
 * runs locally before the manufacturer has been asked for anything.
 */
function transport(p: ScaffoldPlan): Record<string, unknown> {
  const env = envSuffix(p.id);
  switch (p.transport) {
    case 'mqtt':
      return { kind: 'mqtt', topics: [`${p.id}/v1/+/${p.messageType}`], username: p.id, passwordEnv: `MQTT_PASSWORD_${env}` };
    case 'http':
      return {
        kind: 'http',
        signatureHeader: `X-${displayName(p.id).replace(/ /g, '-')}-Signature`,
        recordsField: 'records',
        typeField: 'type',
        secretEnv: `INGEST_SECRET_${env}`,
        toleranceS: 300,
      };
    case 'poll':
      return {
        kind: 'poll',
        apiBaseUrl: `/oem/${p.id}/api/v1`,
        pagePath: '/vehicles/{vin}/signals',
        tokenEndpoint: `/oem/${p.id}/api/oauth/token`,
        clientId: `cvd-${p.id}-poller`,
        secretEnv: `POLL_CLIENT_SECRET_${env}`,
        messageType: p.messageType,
        intervalS: 60,
        pageSize: 100,
        maxRequestsPerS: 5,
      };
  }
}

/**
 * adapters/<id>/manifest.json. The consent flow points at the simulated authorization server
 * this service hosts at /oem/<id> (as adapters/borealis/manifest.json does) until the
 * manufacturer's real one is configured: replace the four `authorization` values then.
 */
export function manifest(p: ScaffoldPlan): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    vinPrefixes: [p.vinPrefix],
    transport: transport(p),
    items: p.items,
    messageTypes: { [p.messageType]: { mapping: `${p.messageType}.jsonata` } },
    authorization: {
      issuer: `/oem/${p.id}`,
      authorizationEndpoint: `/oem/${p.id}/authorize`,
      tokenEndpoint: `/oem/${p.id}/token`,
      clientId: `cvd-${p.id}`,
    },
    activation: { mode: 'auto' },
  };
}
