/**
 * How long the MongoDB engine lets one operation take, on the client and on the server:
 * - SOCKET_TIMEOUT_MS (client): a socket silent this long fails the operation as a network error
 *   (a hung primary, a path that drops packets), which the guard makes StoreUnavailableError.
 *   Closing the socket does not stop the operation on the server, though.
 * - MAX_TIME_MS (server, `maxTimeMS`): what a scan whose cost grows with a collection (a retention
 *   or erasure chunk, the quarantine's raw-text search, the console's views) may take before the
 *   server stops it itself and answers MaxTimeMSExpired (transient: 503, retried). Shorter than the
 *   socket timeout, so a slow scan ends on the server instead of running on after the client gave
 *   up, while its retry starts a second copy beside it.
 * - WRITE_CONCERN_TIMEOUT_MS (server, `wtimeout`): how long a write waits for a majority to
 *   acknowledge it. Without it, a set that lost its majority holds every write until the socket
 *   timeout, closes the connection and retries once (about a minute per request); with it the
 *   server answers a write concern error (transient) while the connection stays usable. The write
 *   itself is not undone: its retry finds it through the unique indexes, as after a network error.
 */
export const SOCKET_TIMEOUT_MS = 30_000;
export const MAX_TIME_MS = 20_000;
export const WRITE_CONCERN_TIMEOUT_MS = 10_000;

/** The option object of a bounded read or delete. */
export const BOUNDED = { maxTimeMS: MAX_TIME_MS } as const;
