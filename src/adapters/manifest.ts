/**
 * What a manufacturer is, as declared in adapters/<id>/manifest.json. OWNED BY THE PIPELINE
 * WORK (registry, transport, mappings). The consent work owns the `authorization` section and
 * the management work the `activation` section; each may refine its own section's type.
 */
export interface AdapterManifest {
  /** Folder name: lowercase letters, digits and "-". */
  id: string;
  name: string;
  /** VIN prefixes (WMI or longer) that this manufacturer claims. */
  vinPrefixes: string[];
  transport: { kind: 'mqtt'; topics: string[] } | { kind: 'http'; path: string };
  /** Catalog items this manufacturer can feed. */
  items: string[];
  /** Raw message type → mapping file (relative to mappings/<id>/). */
  messageTypes: Record<string, { mapping: string }>;
  /** The manufacturer's OAuth 2.0 authorization server, used by the consent flow. */
  authorization: {
    /** Issuer identifier (checked against `iss` on the callback when the server sends it). */
    issuer: string;
    /** Absolute URL, or a path relative to PUBLIC_URL for servers this service hosts. */
    authorizationEndpoint: string;
    tokenEndpoint: string;
    clientId: string;
    /** Name of the environment variable holding the client secret, if the server needs one. */
    clientSecretEnv?: string;
  };
  /** How the manufacturer confirms an activation. */
  activation: { mode: 'auto'; delayMs?: number } | { mode: 'callback' };
}

export interface Adapter {
  manifest: AdapterManifest;
  /** Absolute path of adapters/<id>/. */
  dir: string;
}
