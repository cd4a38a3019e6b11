import type { CompiledMapping } from '../mapping/compile.ts';
import type { AdapterTransport } from '../transports/kinds.ts';

/**
 * How raw messages reach the service: one of the registered transport kinds
 * (src/transports/kinds.ts), each described in its own folder (src/transports/<kind>/kind.ts).
 */
export type { AdapterTransport } from '../transports/kinds.ts';
/** Kept here too for the simulated polled API of the virtual wing, which reads it from this file. */
export type { PollTransport } from '../transports/poll/kind.ts';

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
