import type { CompiledMapping } from '../mapping/compile.ts';

/**
 * How raw messages reach the service. MQTT: `topics` are MQTT topic filters (`+` for one level);
 * the last level of a message's topic is its message type. HTTP: batches are POSTed to
 * `/ingest/v1/<id>` and signed with HMAC-SHA256 (see src/transports/http/signature.ts). Poll:
 * the service fetches pages from the manufacturer's REST API with its own OAuth client
 * credentials, one vehicle at a time; every page is one raw message of `messageType`.
 */
export type AdapterTransport =
  | {
      kind: 'mqtt';
      topics: string[];
      /** Username at the embedded broker (the password: see src/adapters/secrets.ts). */
      username: string;
      /** Environment variable holding the broker password; unset: derived from SECRET_KEY. */
      passwordEnv?: string;
      /**
       * The topic level (counted from 0) that names the vehicle, e.g. 2 in `virtual/v1/<VIN>/telemetry`.
       * A message whose mapped VIN is another is quarantined (VIN_MISMATCH). Unset: the topic names no vehicle.
       */
      vinTopicLevel?: number;
    }
  | {
      kind: 'http';
      /** Header carrying `t=<epoch s>,v1=<hex HMAC-SHA256>` of `${t}.${raw body}`. */
      signatureHeader: string;
      /** The batch envelope: the body's field holding the list of records, and each record's type field. */
      recordsField: string;
      typeField: string;
      /** Environment variable holding the signing secret; unset: derived from SECRET_KEY. */
      secretEnv?: string;
      /** Largest accepted clock skew of the signature timestamp (replay window), seconds. */
      toleranceS?: number;
    }
  | PollTransport;

/**
 * A manufacturer whose REST API the service polls (docs/adding-a-manufacturer.md). URLs are
 * https (http on loopback only) or paths on this service under `/oem/<id>/`, for the simulated
 * API of the virtual wing, resolved against PUBLIC_URL like the `authorization` endpoints.
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

/**
 * What a manufacturer is, as declared in adapters/<id>/manifest.json. OWNED BY THE PIPELINE
 * WORK (registry, transport, mappings). The consent work owns the `authorization` section and
 * the management work the `activation` section; each may refine its own section's type.
 * The JSON Schema the registry checks it against is in ./manifest-schema.ts.
 */
export interface AdapterManifest {
  /** Folder name: lowercase letters, digits and "-". */
  id: string;
  name: string;
  /** VIN prefixes (WMI or longer) that this manufacturer claims. */
  vinPrefixes: string[];
  transport: AdapterTransport;
  /** Catalog items this manufacturer can feed. */
  items: string[];
  /**
   * Raw message type → mapping file (relative to mappings/<id>/). `push: false`: the points of
   * this type are stored (and become latest values) but never pushed to webhooks, for messages
   * that report the past after the fact, e.g. a vehicle's earlier events sent when it connects.
   */
  messageTypes: Record<string, { mapping: string; push?: boolean }>;
  /** The manufacturer's OAuth 2.0 authorization server, used by the consent flow. */
  authorization: {
    /** Issuer identifier (checked against `iss` on the callback when the server sends it). */
    issuer: string;
    /**
     * An https URL (plain http only on a loopback host), or a path relative to PUBLIC_URL for
     * servers this service hosts; the same for `issuer` and `tokenEndpoint` (./manifest-rules.ts).
     */
    authorizationEndpoint: string;
    tokenEndpoint: string;
    clientId: string;
    /**
     * Name of the environment variable holding the client secret. Required when the token
     * endpoint is an absolute URL (a server outside this service issued the secret).
     */
    clientSecretEnv?: string;
    /**
     * The scope that asks the user to prove control of the vehicle and shares no data, used by
     * the portal's withdrawal (default `vehicle:verify`, as the simulated servers name it).
     */
    verifyScope?: string;
  };
  /**
   * What a message with some catalog-invalid items becomes. `quarantine-message` (the default):
   * the whole message is quarantined and none of its items stored. `quarantine-items`: its
   * valid items are stored, and the message is quarantined naming only the failing items
   * (src/pipeline/process-batch.ts), for manufacturers whose one bad sensor should not hide
   * the rest of a reading.
   */
  invalidItems?: 'quarantine-message' | 'quarantine-items';
  /** How the manufacturer confirms an activation; `callback` needs the HTTP transport, whose signature it uses. */
  activation: { mode: 'auto'; delayMs?: number } | { mode: 'callback' };
}

export interface Adapter {
  manifest: AdapterManifest;
  /** Absolute path of adapters/<id>/. */
  dir: string;
  /** Message type → its mapping, compiled once at start. */
  mappings: ReadonlyMap<string, CompiledMapping>;
}
