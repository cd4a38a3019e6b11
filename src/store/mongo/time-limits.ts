/**
 * How long the MongoDB engine lets one operation take, on the client and on the server:
 * - SOCKET_TIMEOUT_MS (client): a socket silent this long fails the operation as a network error
 *   (a hung primary, a path that drops packets), which the guard makes StoreUnavailableError.
 *   The connection is discarded with it; the server stops a read whose client went away (4.2+)
 *   but runs a write on to its end.
 * - MAX_TIME_MS (server, `maxTimeMS`): what a read whose cost grows with a collection (a retention
 *   or erasure chunk's lookup, a list filter the index does not serve, the console's views, a
 *   count) may take before the server stops it and answers MaxTimeMSExpired (transient: 503,
 *   retried) on a connection that stays usable. Shorter than the socket timeout, so it is the
 *   limit that ends a slow read. Not on deletes that must finish (an erasure's raw-text search):
 *   the server completes those even after the socket timeout, and the repeated erasure finds them done.
 * - WRITE_CONCERN_TIMEOUT_MS (server, `wtimeout`): how long a write waits for a majority to
 *   acknowledge it. Without it, a set that lost its majority holds every write until the socket
 *   timeout, closes the connection and retries once (about a minute per request); with it the
 *   server answers a write concern error (transient) while the connection stays usable. The write
 *   itself is not undone: its retry finds it through the unique indexes, as after a network error.
 */
export const SOCKET_TIMEOUT_MS = 30_000;
export const MAX_TIME_MS = 20_000;
export const WRITE_CONCERN_TIMEOUT_MS = 10_000;

/** The options of a bounded read (or of a chunk's delete, which may stop part-way). */
export const BOUNDED = { maxTimeMS: MAX_TIME_MS } as const;
