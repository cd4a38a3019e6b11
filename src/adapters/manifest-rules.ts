import { TRANSPORT_KINDS, transportKind } from '../transports/kinds.ts';
import { endpointProblem, isPath } from './endpoint.ts';
import type { AdapterManifest } from './manifest.ts';

const ENDPOINT_FIELDS = ['issuer', 'authorizationEndpoint', 'tokenEndpoint'] as const;

/**
 * What a manifest's schema cannot say, one readable line each (empty: none). Checked after the
 * schema, so the manifest's shape can be trusted here.
 */
export function manifestProblems(manifest: AdapterManifest): string[] {
  const problems: string[] = [];
  const t = manifest.transport;
  const kind = transportKind(t);
  problems.push(...kind.problems(t, manifest));
  // The activation callback is authenticated with a signature of the transport (the HTTP ingest
  // signature: header and secret); a kind without one could never have its callbacks accepted.
  if (manifest.activation.mode === 'callback' && !kind.callbackSignature) {
    const signing = TRANSPORT_KINDS.filter((k) => k.callbackSignature).map((k) => `"${k.kind}"`);
    problems.push(
      `activation.mode "callback" needs transport.kind ${signing.join(' or ')}: the activation callback is signed like HTTP ingest (transport.signatureHeader and secretEnv), which an ${t.kind} manufacturer does not have; use {"mode": "auto"}`,
    );
  }
  const a = manifest.authorization;
  for (const field of ENDPOINT_FIELDS) {
    const problem = endpointProblem(a[field]);
    if (problem) problems.push(`authorization.${field} ${problem}`);
  }
  // A path is a simulated server this service hosts (src/virtual/oem), mounted at the issuer's
  // path: anything else would pass here and answer 404 in the middle of a consent flow.
  if (ENDPOINT_FIELDS.some((field) => isPath(a[field]))) problems.push(...hostedServerProblems(a));
  // A path is a server this service hosts (src/virtual/oem), whose secret it can derive; an
  // outside server issued the secret itself, so the manifest must say where to read it.
  if (!isPath(a.tokenEndpoint) && a.clientSecretEnv === undefined) {
    problems.push(
      'authorization.clientSecretEnv is required when authorization.tokenEndpoint is not on this service (an absolute URL): name the environment variable holding the client secret that server issued',
    );
  }
  return problems;
}

/** A hosted (simulated) authorization server is "/oem/<name>", with its /authorize and /token there. */
function hostedServerProblems(a: AdapterManifest['authorization']): string[] {
  if (!/^\/oem\/[a-z0-9-]+$/.test(a.issuer)) {
    return [
      `authorization.issuer must be "/oem/<name>" (lowercase letters, digits, "-") for an authorization server this service hosts (an endpoint is a path); got ${JSON.stringify(a.issuer)}`,
    ];
  }
  const problems: string[] = [];
  if (a.authorizationEndpoint !== `${a.issuer}/authorize`) problems.push(`authorization.authorizationEndpoint must be "${a.issuer}/authorize", where the simulated server at ${a.issuer} answers`);
  if (a.tokenEndpoint !== `${a.issuer}/token`) problems.push(`authorization.tokenEndpoint must be "${a.issuer}/token", where the simulated server at ${a.issuer} answers`);
  return problems;
}
