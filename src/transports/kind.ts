/**
 * What the rest of the service needs to know about one kind of transport, said by the
 * transport itself (as Eclipse Hono's protocol adapters fill the execution context), so that
 * nothing outside src/transports/<kind>/ branches on a transport's name. A new kind is a folder
 * with its descriptor (kind.ts) and its receiving side, registered in ./kinds.ts.
 *
 * The descriptor sits below the transports' receiving side in the layers (it is read by the
 * manifest registry and the pipeline): it imports only from the domain and below.
 */
/** What a transport's checks read of the rest of its manifest (the whole manifest type would import back). */
export interface ManifestContext {
  id: string;
  /** Message type → its mapping. */
  messageTypes: Record<string, unknown>;
}

export interface TransportKind<T extends { kind: string }> {
  kind: T['kind'];
  /** JSON Schema (draft-07) of a manifest's `transport` object of this kind, `kind` a `const`. */
  schema: Record<string, unknown>;
  /** What the schema cannot say about this transport in this manifest, one readable line each. */
  problems(t: T, manifest: ManifestContext): string[];
  /**
   * The environment variable a manifest names for the transport's secret (a broker password, a
   * signing key, a client secret), if any; unset, the secret is derived from SECRET_KEY.
   */
  secretEnv(t: T): string | undefined;
  /** What a sender needs besides the secret to reach the service (or, polled, what we log in with), for `adapters secret`. */
  credentials(t: T, secret: string): Record<string, string>;
  /**
   * Why two manufacturers of this kind cannot be loaded together (the same broker login,
   * overlapping topics), naming `otherFile`; null when they can.
   */
  conflict?(t: T, other: T, otherFile: string): string | null;
  /**
   * The VIN the carrier of a message names before any mapping (an MQTT topic level), or null.
   * Keeps one vehicle's messages in one partition, and quarantines a message whose mapped VIN is
   * another (VIN_MISMATCH).
   */
  vinOf?(t: T, message: { topic?: string }): string | null;
  /**
   * How this kind signs a manufacturer's activation callbacks (the HTTP ingest signature:
   * `t=<epoch s>,v1=<hex HMAC-SHA256>` in `header`); absent, its manufacturers cannot use
   * `activation.mode: "callback"`.
   */
  callbackSignature?(t: T): { header: string; toleranceS: number };
  /**
   * The service fetches this kind's data vehicle by vehicle: an activated vehicle gets a poll
   * job (src/management/poll-schedule.ts), removed when no subscription has it activated.
   */
  pollsVehicles?: boolean;
}
