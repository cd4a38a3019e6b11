import type { AdapterManifest, PollTransport } from './manifest.ts';

/** Hosts on which a local authorization server may use plain http (as for redirect URLs, RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const ENDPOINT_FIELDS = ['issuer', 'authorizationEndpoint', 'tokenEndpoint'] as const;

/**
 * What a manifest's schema cannot say, one readable line each (empty: none). Checked after the
 * schema, so the manifest's shape can be trusted here.
 */
export function manifestProblems(manifest: AdapterManifest): string[] {
  const problems: string[] = [];
  const t = manifest.transport;
  if (t.kind === 'mqtt') {
    const unmapped = t.topics.map((f) => f.split('/').at(-1) ?? '').filter((type) => !(type in manifest.messageTypes));
    if (unmapped.length > 0) problems.push(`topics end in message types without a mapping: ${unmapped.join(', ')}`);
  }
  if (t.kind === 'poll') problems.push(...pollProblems(manifest.id, t, manifest.messageTypes));
  // The activation callback is authenticated with the HTTP ingest signature (header and secret
  // of transport); an MQTT manufacturer has neither, so its callbacks could never be accepted.
  if (manifest.activation.mode === 'callback' && t.kind !== 'http') {
    problems.push(
      `activation.mode "callback" needs transport.kind "http": the activation callback is signed like HTTP ingest (transport.signatureHeader and secretEnv), which an ${t.kind} manufacturer does not have; use {"mode": "auto"}`,
    );
  }
  const a = manifest.authorization;
  for (const field of ENDPOINT_FIELDS) {
    const problem = endpointProblem(a[field]);
    if (problem) problems.push(`authorization.${field} ${problem}`);
  }
  // A path is a server this service hosts (src/oem-virtual), whose secret it can derive; an
  // outside server issued the secret itself, so the manifest must say where to read it.
  if (!isPath(a.tokenEndpoint) && a.clientSecretEnv === undefined) {
    problems.push(
      'authorization.clientSecretEnv is required when authorization.tokenEndpoint is not on this service (an absolute URL): name the environment variable holding the client secret that server issued',
    );
  }
  return problems;
}

/**
 * A poll transport's API and token endpoint: https URLs of the manufacturer, or paths of the
 * simulated API this service hosts for it, which lives under /oem/<id>/ (src/virtual).
 */
function pollProblems(id: string, t: PollTransport, messageTypes: AdapterManifest['messageTypes']): string[] {
  const problems: string[] = [];
  if (!(t.messageType in messageTypes)) problems.push(`transport.messageType "${t.messageType}" has no mapping in messageTypes`);
  for (const field of ['apiBaseUrl', 'tokenEndpoint'] as const) {
    const value = t[field];
    const problem = endpointProblem(value);
    if (problem) problems.push(`transport.${field} ${problem}`);
    else if (isPath(value) && !value.startsWith(`/oem/${id}/`)) problems.push(`transport.${field} is a path on this service, so it must be under /oem/${id}/ (the simulated API of this manufacturer)`);
  }
  if (/[?#]|\/$/.test(t.apiBaseUrl)) problems.push('transport.apiBaseUrl must end without "/", a query or a fragment: transport.pagePath is appended to it');
  // As for authorization: only a hosted API can know a secret derived from SECRET_KEY.
  if (!isPath(t.tokenEndpoint) && t.secretEnv === undefined) {
    problems.push(
      'transport.secretEnv is required when transport.tokenEndpoint is an absolute URL: name the environment variable holding the client secret the manufacturer issued for its API',
    );
  }
  return problems;
}

const isPath = (value: string): boolean => value.startsWith('/') && !value.startsWith('//');

/**
 * Why an OAuth endpoint (or issuer) value is unusable, or null. A path is resolved against
 * PUBLIC_URL (src/consent/manufacturer-auth.ts); anything else must be an absolute https URL,
 * plain http only on a loopback host for local development.
 */
export function endpointProblem(value: string): string | null {
  const rule = 'must be an https URL or an absolute path on this service ("/oem/<id>/..."; http only on localhost, 127.0.0.1 or [::1])';
  if (/[\s\\\u0000-\u001f\u007f]/.test(value)) return `${rule}, without whitespace or backslashes`;
  if (isPath(value)) return null;
  if (!/^https?:\/\//i.test(value)) return rule;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${rule}; ${JSON.stringify(value)} is not a valid URL`;
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return rule;
  if (url.username || url.password) return `${rule}, without credentials`;
  if (value.includes('#')) return `${rule}, without a fragment`;
  return null;
}
