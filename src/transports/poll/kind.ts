import { endpointProblem, isPath } from '../../adapters/endpoint.ts';
import type { TransportKind } from '../kind.ts';

/**
 * A manufacturer whose REST API the service polls (docs/adding-a-manufacturer.md): it fetches
 * pages with its own OAuth client credentials, one vehicle at a time; every page is one raw
 * message of `messageType`. URLs are https (http on loopback only) or paths on this service
 * under `/oem/<id>/`, for the simulated API of the virtual wing, resolved against PUBLIC_URL
 * like the `authorization` endpoints.
 */
export interface PollTransport {
  kind: 'poll';
  /** Base of the manufacturer's API; `pagePath` is appended to it. */
  apiBaseUrl: string;
  /** One vehicle's page of signals, relative to `apiBaseUrl`; `{vin}` is replaced by the VIN. */
  pagePath: string;
  /** The OAuth 2.0 token endpoint of the client-credentials grant (RFC 6749 section 4.4). */
  tokenEndpoint: string;
  clientId: string;
  /**
   * Environment variable holding the client secret. Unset, it is derived from SECRET_KEY
   * (src/adapters/secrets.ts), which only a simulated API of this service can know: required
   * when `tokenEndpoint` is an absolute URL.
   */
  secretEnv?: string;
  /** Scope asked for at the token endpoint (space-separated tokens); none when absent. */
  scope?: string;
  /** The message type every page is ingested as (a key of `messageTypes`). */
  messageType: string;
  /** Seconds between two polls of one vehicle once it is caught up. */
  intervalS?: number;
  /** Signals asked for per page (the `pageSizeParam` query parameter). */
  pageSize?: number;
  /** Requests per second to this API at most, across every worker process. */
  maxRequestsPerS?: number;
  /** Query parameter carrying the cursor of the page asked for (none on the first request). */
  cursorParam?: string;
  /** Query parameter carrying `pageSize`. */
  pageSizeParam?: string;
  /** Field of a page holding the cursor of the next page (where to resume after a restart). */
  nextCursorField?: string;
}

/** What an absent optional field of a poll transport means. */
export const POLL_DEFAULTS = {
  intervalS: 60,
  pageSize: 100,
  maxRequestsPerS: 5,
  cursorParam: 'cursor',
  pageSizeParam: 'limit',
  nextCursorField: 'nextCursor',
} as const satisfies Partial<PollTransport>;

export const pollTransport: TransportKind<PollTransport> = {
  kind: 'poll',
  schema: {
    // Field by field in PollTransport above; URLs checked in problems below.
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'apiBaseUrl', 'pagePath', 'tokenEndpoint', 'clientId', 'messageType'],
    properties: {
      kind: { const: 'poll' },
      apiBaseUrl: { type: 'string', minLength: 1 },
      // A path of the API with the vehicle's place marked, e.g. /vehicles/{vin}/signals.
      pagePath: { type: 'string', pattern: '^/[A-Za-z0-9._~/-]*\\{vin\\}[A-Za-z0-9._~/-]*$' },
      tokenEndpoint: { type: 'string', minLength: 1 },
      clientId: { type: 'string', minLength: 1 },
      secretEnv: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
      // Scope tokens (RFC 6749 section 3.3) separated by single spaces.
      scope: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+( [\\x21\\x23-\\x5B\\x5D-\\x7E]+)*$' },
      messageType: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
      intervalS: { type: 'integer', minimum: 5, maximum: 86400 },
      pageSize: { type: 'integer', minimum: 1, maximum: 1000 },
      maxRequestsPerS: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
      cursorParam: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
      pageSizeParam: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
      nextCursorField: { type: 'string', minLength: 1 },
    },
  },
  problems: (t, manifest) => pollProblems(manifest.id, t, manifest.messageTypes),
  secretEnv: (t) => t.secretEnv,
  // Ours at the manufacturer's API: what its simulated API (or the manufacturer) must accept.
  credentials: (t, secret) => ({ tokenEndpoint: t.tokenEndpoint, clientId: t.clientId, clientSecret: secret }),
  pollsVehicles: true,
};

/**
 * A poll transport's API and token endpoint: https URLs of the manufacturer, or paths of the
 * simulated API this service hosts for it, which lives under /oem/<id>/ (src/virtual).
 */
function pollProblems(id: string, t: PollTransport, messageTypes: Record<string, unknown>): string[] {
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
