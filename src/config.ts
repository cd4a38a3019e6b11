import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
// A namespace import: a named import of parseEnv would fail to link on Node < 20.12.
import * as util from 'node:util';
import ipaddr from 'ipaddr.js';

/**
 * All settings of the service, in one place. Every key has a documented default and can be
 * overridden by the environment variable of the same name. `.env.example` mirrors this table
 * (and then the virtual wing's own SIM_* settings, which the wing reads itself:
 * simulator/src/settings.ts); `test/config.test.ts` checks that they stay in step.
 *
 * Entry points read `.env` into the environment first ({@link applyEnvFile}).
 *
 * Invalid values stop the start with a message naming the variable (see {@link ConfigError}).
 * Behaviour never switches on NODE_ENV.
 */

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

/** Reads one setting's raw value; throws {@link ConfigError} naming the variable. */
export type Parser<T> = (raw: string, name: string) => T;

const str: Parser<string> = (raw) => raw;
const optionalStr: Parser<string | undefined> = (raw) => (raw === '' ? undefined : raw);

export const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> =>
  (raw, name) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
    return n;
  };

/** Empty: not set (the manifest's own value applies). */
const optionalInt =
  (min: number, max?: number): Parser<number | undefined> =>
  (raw, name) =>
    raw.trim() === '' ? undefined : int(min, max)(raw, name);

/** A share between 0 and 1 (a probability). */
export const fraction: Parser<number> = (raw, name) => {
  const n = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new ConfigError(name, `must be a number from 0 to 1, got "${raw}"`);
  return n;
};

const bool: Parser<boolean> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `must be true/false (or on/off), got "${raw}"`);
};

/** Empty: not set, so a rule in {@link loadConfig} picks the value. */
const optionalBool: Parser<boolean | undefined> = (raw, name) => (raw.trim() === '' ? undefined : bool(raw, name));

const url =
  (protocols: string[]): Parser<string | undefined> =>
  (raw, name) => {
    if (raw === '') return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, `must be a URL, got "${raw}"`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    }
    return raw.replace(/\/+$/, '');
  };

const oneOf =
  <T extends string>(values: readonly T[]): Parser<T> =>
  (raw, name) => {
    if (!(values as readonly string[]).includes(raw)) {
      throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  };

/**
 * REDIS_CLUSTER_NODES: the seeds of a Redis Cluster, each `host:port` or a
 * `redis[s]://[user:password@]host:port` URL; one scheme and one set of credentials for all.
 * A cluster has only database 0, so a URL naming another is refused here rather than ignored.
 */
const clusterSeeds: Parser<string[] | undefined> = (raw, name) => {
  const parts = raw.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return undefined;
  const access = new Set<string>();
  for (const p of parts) {
    if (!p.includes('://')) {
      if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(p)) throw new ConfigError(name, `must list host:port seeds (or redis:// URLs), got "${p}"`);
      continue;
    }
    let u: URL;
    try {
      u = new URL(p);
    } catch {
      throw new ConfigError(name, `must list host:port seeds (or redis:// URLs), got "${p}"`);
    }
    if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new ConfigError(name, `must use redis: or rediss:, got "${u.protocol}"`);
    const db = u.pathname.replace(/^\//, '');
    if (db !== '' && db !== '0') {
      throw new ConfigError(name, `names database ${db} in "${u.host}": a Redis Cluster has only database 0 (drop "/${db}"; QUEUE_PREFIX keeps installations apart)`);
    }
    access.add(`${u.protocol}${u.username}:${u.password}`);
  }
  if (access.size > 1) throw new ConfigError(name, 'must use one scheme (redis: or rediss:) and one user and password for every seed');
  return parts;
};

const intList: Parser<number[]> = (raw, name) => {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) {
    throw new ConfigError(name, `must be a comma-separated list of whole numbers, got "${raw}"`);
  }
  return parts.map(Number);
};

/**
 * TRUST_PROXY, as Fastify's `trustProxy` takes it: false (the connection's address is the
 * client's) or the proxies' addresses. Refused: `true` (the client would choose its own address
 * with X-Forwarded-For) and hop counts (Fastify 5 no longer honours them: they cannot tell a
 * proxy from a client that sends the header itself).
 */
export type TrustProxySetting = false | string[];

const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** A dotted-quad IPv4 or an IPv6 address, optionally with a /prefix that fits it. */
function isAddressOrCidr(v: string): boolean {
  const [address = '', prefix, ...rest] = v.split('/');
  if (rest.length > 0) return false;
  const bits = ipaddr.IPv4.isValidFourPartDecimal(address) ? 32 : ipaddr.IPv6.isValid(address) ? 128 : 0;
  if (bits === 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
}

const trustProxy: Parser<TrustProxySetting> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (v === '' || v === 'false' || v === 'off') return false;
  const parts = v.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of parts) {
    if (!PROXY_RANGES.includes(p) && !isAddressOrCidr(p)) {
      throw new ConfigError(
        name,
        `must be false or a comma-separated list of the proxies' addresses or CIDRs (or ${PROXY_RANGES.join(', ')}); ` +
          `got "${p}" (neither "true" nor a hop count: both would let a client choose its own address)`,
      );
    }
  }
  return parts;
};

export const ROLES = ['api', 'broker', 'pipeline', 'push', 'simulator'] as const;
export type Role = (typeof ROLES)[number];

const roles: Parser<Role[]> = (raw, name) => {
  if (raw.trim() === 'all') return [...ROLES];
  const parts = raw.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of parts) {
    if (!(ROLES as readonly string[]).includes(p)) {
      throw new ConfigError(name, `must be "all" or a comma-separated list of ${ROLES.join(', ')}; got "${p}"`);
    }
  }
  if (parts.length === 0) throw new ConfigError(name, 'must name at least one role');
  return parts as Role[];
};

/** One setting: its default (as the environment would give it), its parser and its documentation. */
export interface Definition<T> {
  default: string;
  parse: Parser<T>;
  doc: string;
}

export function def<T>(defaultValue: string, parse: Parser<T>, doc: string): Definition<T> {
  return { default: defaultValue, parse, doc };
}

/** The values of a table of settings, parsed. */
export type SettingsOf<D extends Record<string, Definition<unknown>>> = { [K in keyof D]: ReturnType<D[K]['parse']> };

/**
 * Reads a table of settings from an environment: the service's own ({@link loadConfig}) and a
 * part's that parses its settings itself (the virtual wing's, simulator/src/settings.ts).
 */
export function readSettings<D extends Record<string, Definition<unknown>>>(definitions: D, env: NodeJS.ProcessEnv): SettingsOf<D> {
  const out: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(definitions)) out[name] = d.parse(env[name] ?? d.default, name);
  return out as SettingsOf<D>;
}

/** The table of every setting. The key is the environment variable. */
export const DEFINITIONS = {
  // --- HTTP front
  PORT: def('8080', int(0, 65535), 'HTTP listen port.'),
  HOST: def('', optionalStr, 'HTTP listen address (and PROBE_PORT\'s). Default: 127.0.0.1 in the local try-out (none of REDIS_URL, REDIS_CLUSTER_NODES, MONGO_URL set), which allows private webhook targets and leaves /metrics open, so it answers on this machine only; else 0.0.0.0. A deployment sets it explicitly.'),
  PUBLIC_URL: def('', url(['http:', 'https:']), 'Public origin used in redirects and links. Default: http://localhost:$PORT.'),
  CONSENT_URL: def('', url(['http:', 'https:']), 'Origin of the consent portal ({consent_url}). Default: PUBLIC_URL.'),
  PORTAL_URL: def('', url(['http:', 'https:']), 'Origin of the portal API ({portal_url}). Default: PUBLIC_URL.'),
  ADMIN_TOKEN: def('', optionalStr, 'Bearer token (at least 16 characters) for /admin/v1/* and the console (/console). Unset, both are off, except in the local try-out (DEMO_SEED on), which derives one from SECRET_KEY and prints it in the demo block (`npm run cli -- console token` shows it again).'),
  BODY_LIMIT_BYTES: def('1048576', int(1024, 64 * 1024 * 1024), 'Largest accepted request body; larger ones get 413.'),
  REQUEST_TIMEOUT_MS: def('30000', int(1000), 'Time after which a slow HTTP request is cut off.'),
  HTTP_HEADERS_TIMEOUT_MS: def('10000', int(1000), 'Time a client has to send the request headers (guards against slow-header attacks); capped at REQUEST_TIMEOUT_MS.'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: def('72000', int(1000), 'How long an idle keep-alive connection stays open (longer than common load balancers\' 60 s idle timeout).'),
  TRUST_PROXY: def('false', trustProxy, 'Addresses/CIDRs of the proxies in front of the API (loopback, linklocal, uniquelocal allowed) whose X-Forwarded-For names the client, for the per-client limits (portal, failed authentications). false: the connection\'s address is the client\'s.'),
  // --- Operators' console (/console, docs/console.md)
  CONSOLE_SESSION_MINUTES: def('480', int(1, 10080), 'How long a console session lasts after sign-in (at most a week); then the operator signs in again.'),
  CONSOLE_SAMPLE_SECONDS: def('5', int(1, 60), 'How often every process adds what it counted to the console\'s pipeline charts in Redis (at most 60: the charts are per minute).'),
  // --- Process
  ROLES: def('all', roles, 'What this process runs: "all", or a list of api, broker, pipeline, push, simulator.'),
  LOG_LEVEL: def('info', oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const), 'pino log level.'),
  LOG_PRETTY: def('false', bool, 'Human-readable logs instead of JSON lines.'),
  SHUTDOWN_TIMEOUT_MS: def('15000', int(100), 'Longest a graceful shutdown may take before the process exits anyway; keep it above PUSH_TIMEOUT_MS + 2 s, the longest a webhook send in flight can take.'),
  PROBE_PORT: def('0', int(0, 65535), 'A process without the api role serves /health, /ready and /metrics on this port (0: not at all).'),
  METRICS_TOKEN: def('', optionalStr, 'Bearer token (at least 16 characters) that /metrics then requires, on PORT and PROBE_PORT. Unset: /metrics is open; keep it off the public port (docs/operations.md).'),
  DATA_DIR: def('./data', str, 'Where the embedded store, the private Redis and other local state live.'),
  SECRET_KEY: def('', optionalStr, 'Key (at least 32 characters) that encrypts stored secrets and pseudonymises VINs in logs. Default: generated once into DATA_DIR/secret.key.'),
  DEMO_SEED: def('', optionalBool, 'On an empty store, create a demo consumer subscribed to every item and print its API key once, on stdout (a deployed process\'s log). Default: on only for the local try-out, when neither REDIS_URL (nor REDIS_CLUSTER_NODES) nor MONGO_URL is set.'),
  // --- Redis and queues
  REDIS_URL: def('', url(['redis:', 'rediss:']), 'Redis for BullMQ and rate limits. Default: a private redis-server started from PATH.'),
  REDIS_CLUSTER_NODES: def('', clusterSeeds, 'Use a Redis Cluster: comma-separated host:port seeds (or redis[s]://user:password@host:port URLs, database 0 only). Every connection (queues, workers, limiters, invalidations, the CLI) then goes to the cluster; REDIS_URL must be unset (docs/operations.md).'),
  QUEUE_PREFIX: def('cvd', str, 'Prefix of every BullMQ and rate-limit key in Redis: a plain namespace (the hash tags that place keys on a cluster are added per queue and partition).'),
  HARMONIZE_PARTITIONS: def('1', int(1, 256), 'Harmonize queues (partitions): a raw message goes to the one its VIN hashes to, so one vehicle stays in order; pipeline workers consume every partition. On a Redis Cluster each partition can live on another master (docs/operations.md).'),
  PUSH_PARTITIONS: def('1', int(1, 256), 'Push delivery queues (partitions): a delivery goes to the one its VIN hashes to; push workers consume every partition.'),
  REDIS_WAIT_REPLICAS: def('0', int(0, 16), 'Before an acknowledgement of work that lives only in Redis (PUBACK, the 202 of an ingest, replay or activation), wait until this many replicas of the owning master have it (Redis WAIT); refused (503, no PUBACK) when they do not within REDIS_WAIT_TIMEOUT_MS. 0: acknowledged once the master has it (a failover may lose the last writes, docs/operations.md).'),
  REDIS_WAIT_TIMEOUT_MS: def('1000', int(1, 60_000), 'Longest an acknowledgement waits for REDIS_WAIT_REPLICAS replicas.'),
  PIPELINE_CONCURRENCY: def('4', int(1, 1000), 'Harmonization jobs a pipeline process runs at once (shared out over the HARMONIZE_PARTITIONS).'),
  PIPELINE_BATCH_SIZE: def('200', int(1, 10000), 'Raw messages per queued batch job.'),
  /**
   * 64 KiB keeps a batch's job text under V8's large-object size (128 KiB): as JSON (quotes
   * escaped, about 1.3 times the bytes) then sealed (base64, 4/3), 64 KiB become about 110 KiB.
   * A larger string gets memory pages of its own, mapped afresh each time: on the 2-core VMs
   * measured, making, encoding or parsing one cost 4-6 ns a byte against 0.1-0.6 below the limit,
   * and a batch's text is made and read about six times between the broker and the worker (at 100
   * telemetry messages a batch, 60 µs CPU a message against 13 at 50).
   */
  PIPELINE_BATCH_MAX_BYTES: def('65536', int(1024, 64 * 1024 * 1024), 'Most bytes of raw messages (bodies and topics) per queued batch job, whatever PIPELINE_BATCH_SIZE allows; the default keeps a job small enough for Node to make and read cheaply (docs/operations.md).'),
  INGEST_MAX_RECORDS: def('1000', int(1, 1_000_000), 'Most records one signed HTTP ingest request (POST /ingest/v1/<manufacturer>) may carry; a request with more gets 413 and nothing of it is queued. Bounds the work one request can cause whatever the size of each record.'),
  INGEST_MAX_FUTURE_S: def('300', int(1), 'A message whose data is stamped more than this after it was received is quarantined (TIME_IN_FUTURE): the latest value only moves forward, so one reading from a wrong vehicle clock would stay the latest for ever. Raise it for a simulator running ahead of real time (SIM_CLOCK scaled).'),
  PIPELINE_BATCH_MAX_WAIT_MS: def('20', int(0, 10000), 'Longest a raw message waits for its batch to fill.'),
  PIPELINE_LOCK_DURATION_MS: def('30000', int(100), 'BullMQ lock of an active harmonize job: after a worker dies, its job is taken over once the lock has run out.'),
  PIPELINE_STALLED_INTERVAL_MS: def('30000', int(50), 'How often a harmonize worker looks for jobs whose worker died (BullMQ stalledInterval).'),
  JOB_RETENTION_COMPLETED_S: def('3600', int(0), 'How long completed jobs are kept in Redis.'),
  JOB_RETENTION_FAILED_S: def('604800', int(0), 'How long failed jobs are kept in Redis.'),
  // --- Poller (manufacturers whose API is polled: transport kind poll)
  POLL_CONCURRENCY: def('10', int(1, 1000), 'Vehicles a poll worker polls at once (each still waits for its manufacturer\'s request rate, maxRequestsPerS).'),
  POLL_INTERVAL_S: def('', optionalInt(1, 86400), 'Seconds between two polls of a caught-up vehicle, for every polled manufacturer. Default: each manifest\'s intervalS (a demo or a test may poll faster).'),
  POLL_REQUEST_TIMEOUT_MS: def('10000', int(100, 600000), 'A polled API request (token or page) without an answer after this long counts as failed and is backed off.'),
  POLL_BACKOFF_BASE_MS: def('1000', int(1, 3600000), 'First back-off after a failed poll (5xx, timeout, refused connection); it doubles with every failure in a row.'),
  POLL_BACKOFF_MAX_S: def('300', int(1, 86400), 'Longest back-off between two failed polls of a vehicle.'),
  POLL_LOCK_DURATION_MS: def('30000', int(100), 'BullMQ lock of a vehicle being polled: after its worker dies, another worker takes the vehicle over once the lock has run out.'),
  POLL_STALLED_INTERVAL_MS: def('30000', int(50), 'How often a poll worker looks for vehicles whose worker died (BullMQ stalledInterval).'),
  POLL_MAX_PAGE_BYTES: def('1048576', int(1024, 1073741824), 'Largest answer a polled API may send (a page, or a token): the body is read as it streams and abandoned past this, and the page is quarantined (POLL_PAGE_INVALID, its first 4 KiB kept) and counted as a failed poll.'),
  POLL_BAD_PAGE_TRIES: def('3', int(1, 1000), 'A polled page that is not JSON, or has no next cursor, this many times in a row is quarantined (POLL_PAGE_INVALID) for an operator to see; the vehicle\'s polls go on backing off.'),
  POLL_RECONCILE_INTERVAL_S: def('300', int(1), 'How often the pipeline role checks that every vehicle activated with a polled manufacturer has its poll job (and gives it one if not).'),
  // --- Store
  MONGO_URL: def('', url(['mongodb:', 'mongodb+srv:']), 'Use MongoDB as the store. Default: embedded SQLite in DATA_DIR.'),
  MONGO_DB: def('cvd', str, 'MongoDB database name.'),
  SQLITE_BUSY_TIMEOUT_MS: def('5000', int(0, 60_000), 'How long a SQLite write waits for the write lock held by another process before the store reports itself unavailable (HTTP 503, workers retry).'),
  SQLITE_MMAP_MB: def('0', int(0), 'How much of the SQLite file each process reads through memory mapping (PRAGMA mmap_size) instead of read calls: history pages of a store that does not fit in SQLite\'s own cache cost about 40 % less CPU with the file mapped (npm run bench:store). 0: none. The mapped pages count in the process\'s resident memory (shared, reclaimable file pages).'),
  SQLITE_ERASURE_VACUUM_MAX_MB: def('256', int(0), 'After a GDPR erasure the SQLite file is rewritten (VACUUM) so no byte of the erased rows stays in it, while it is at most this large: the rewrite holds the write lock about 40 ms per MB (docs/operations.md). A larger file is not rewritten; the erasure logs a warning and the deleted rows may stay in unused page space until an offline VACUUM.'),
  HISTORY_RETENTION_DAYS: def('90', int(1), 'Data points older than this are purged.'),
  HISTORY_PURGE_INTERVAL_S: def('3600', int(1), 'How often the pipeline role purges data points older than HISTORY_RETENTION_DAYS, push deliveries older than DELIVERY_LOG_RETENTION_DAYS, and sweeps consent processes.'),
  HISTORY_CLUSTER_INTERVAL_S: def('60', int(0), 'How often the pipeline role lays out the history buckets written since its last run next to each vehicle\'s earlier ones (SQLite), so a history page reads about a third as many storage pages; each bucket is moved once. 0: never (a history page then reads one storage page per point).'),
  DELIVERY_LOG_RETENTION_DAYS: def('30', int(1), 'Push deliveries (the log behind GET /push/v1/deliveries, with the VIN and the data point they carried) are deleted this long after they were created, whatever their status.'),
  CONSENT_PROCESS_RETENTION_DAYS: def('30', int(1), 'Consent processes that ended without a consent (REJECTED, FAILED, TIMED_OUT, or REVOKED before they became active) are deleted this long after they ended; consents that were active stay, revoked or not.'),
  // --- MQTT
  MQTT_URL: def('', url(['mqtt:', 'mqtts:', 'tcp:', 'ws:', 'wss:']), 'External broker to use instead of the embedded one.'),
  MQTT_HOST: def('127.0.0.1', str, 'Listen address of the embedded broker.'),
  MQTT_PORT: def('11883', int(0, 65535), 'Port of the embedded broker (not 1883, so it never collides with a local Mosquitto).'),
  MQTT_MAX_PAYLOAD_BYTES: def('262144', int(64), 'Largest accepted MQTT payload.'),
  MQTT_CLIENT_ID: def('', optionalStr, 'Client id of the subscriber on an external broker (MQTT_URL); the broker keeps a persistent session under it, so it must be unique and stay the same across restarts. Default: <QUEUE_PREFIX>-ingest; with MQTT_SHARE_GROUP, <QUEUE_PREFIX>-<host name>-<port> (PORT with the api role, else PROBE_PORT; the process id when neither is listened on, which is not stable: set one).'),
  MQTT_SUBSCRIBER: def('on', oneOf(['on', 'off', 'auto'] as const), 'With MQTT_URL: subscribe to the external broker in this process. auto (what the npm worker scripts use unless told): on with MQTT_SHARE_GROUP, off without (then exactly one process subscribes).'),
  MQTT_SHARE_GROUP: def('', optionalStr, 'With MQTT_URL: subscribe through the MQTT 5 shared subscription $share/<group>/<topic filter>, so every pipeline process subscribes and the broker spreads the stream over them (docs/operations.md). Unset: plain subscriptions, exactly one subscribing process.'),
  MQTT_SESSION_EXPIRY_S: def('604800', int(0, 4294967295), 'How long the external broker keeps the subscriber\'s session, and the messages it queues for it, after the subscriber disconnected without leaving (a crash, or the last member of the share group stopping): a week. 0: no session survives a disconnect.'),
  MQTT_RECEIVE_MAXIMUM: def('', optionalInt(1, 65535), 'Most QoS 1 messages the broker sends the subscriber before their PUBACK (MQTT 5 Receive Maximum); each is acknowledged once the batch holding it is queued. Default: twice PIPELINE_BATCH_SIZE, so a batch fills while the previous one is being queued.'),
  // --- Quarantine
  QUARANTINE_MAX_RAW_BYTES: def('1048576', int(1024, 1073741824), 'Most bytes of a raw message a quarantine entry keeps; a longer message is kept cut (rawTruncated) and cannot be reprocessed. The default keeps every message the transports accept by default whole.'),
  QUARANTINE_PAGE_MAX_BYTES: def('4194304', int(1024, 1073741824), 'A page of GET /admin/v1/quarantine (and of the console\'s list) ends once its raw messages add up to this many bytes, whatever its limit; nextCursor goes on from there.'),
  // --- Mapping
  MAPPING_TIMEOUT_MS: def('1000', int(1, 60000), 'Longest one mapping evaluation may run (wall clock: generous, since a loaded machine or a GC pause can stall a 1 ms mapping for 100 ms).'),
  MAPPING_MAX_DEPTH: def('1000', int(1, 10000), 'Deepest JSONata depth count one mapping evaluation may reach (it stops runaway recursion; the count also adds up the items of a constructor the interpreter evaluates at once). A mapping that could exceed it runs interpreted, so both engines refuse the same messages (mappings/README.md).'),
  MAPPING_SANDBOX_MEMORY_MB: def('256', int(32, 16384), 'Heap of each worker thread that runs mappings apart from the process: dry runs and mapping cases (the console\'s playground, POST /admin/v1/mappings/{manufacturer}/dry-run), and the pipeline\'s mappings that run interpreted. A run that needs more is stopped and answered (or quarantined) MAPPING_LIMIT, as is one that outlives its deadline (docs/security.md).'),
  MAPPING_COMPILER: def('on', oneOf(['on', 'off'] as const), 'Run each mapping compiled to JavaScript where it can be (the JSONata interpreter takes the inputs the compiled code does not model, so results are the same); off: the interpreter runs every mapping (mappings/README.md).'),
  MAPPINGS_WATCH: def('', optionalBool, 'Reload adapters/ and mappings/ when a file there changes (served once the changed manufacturer\'s cases pass; docs/adding-a-manufacturer.md). Default: on only in the local try-out, i.e. when DEMO_SEED is; elsewhere `npm run cli -- mappings reload` (or the console) makes every process reload.'),
  // --- Simulator
  SIMULATOR: def('on', oneOf(['on', 'off'] as const), 'Load the virtual wing in this process (the simulated manufacturers: their authorization servers at /oem/<id>, the polled API, the demo callback page, the sandbox, and the simulator role\'s virtual vehicles; docs/architecture.md). Its own settings (SIM_*) are read by the wing (simulator/src/settings.ts). The production build leaves the wing out: there it must be off.'),
  VIRTUAL_ACTIVATION_DELAY_MS: def('1000', int(0), 'Delay before the virtual manufacturer confirms an activation.'),
  // --- Consent
  CONSENT_CODE_TTL_S: def('600', int(1), 'Validity of a confirmation code after consent was given.'),
  OEM_TOKEN_TIMEOUT_MS: def('5000', int(10), 'Timeout of the token exchange with a manufacturer.'),
  // --- Rate limits
  RATE_LIMIT_SUBSCRIPTION_MAX: def('600', int(1), 'Requests per subscription and window.'),
  RATE_LIMIT_SUBSCRIPTION_WINDOW_S: def('60', int(1), 'Window of the per-subscription limit.'),
  RATE_LIMIT_VEHICLE_MAX: def('120', int(1), 'Delivery requests per vehicle, subscription and window.'),
  RATE_LIMIT_VEHICLE_WINDOW_S: def('60', int(1), 'Window of the per-vehicle limit.'),
  RATE_LIMIT_PORTAL_MAX: def('60', int(1), 'Requests per client address (IPv6: per /64) and window to the consent portal and callbacks (see TRUST_PROXY).'),
  RATE_LIMIT_PORTAL_WINDOW_S: def('60', int(1), 'Window of the portal limit.'),
  RATE_LIMIT_AUTH_FAILURE_MAX: def('20', int(1), 'Failed authentications (bad API key, admin or metrics token; confirmation call with a bad key or an unknown code) per client address (IPv6: per /64) and window, and failed confirmation calls per API key; past it that address (or key) gets 429 until the window ends (docs/security.md).'),
  RATE_LIMIT_AUTH_FAILURE_WINDOW_S: def('60', int(1), 'Window of the failed-authentication limit.'),
  // --- Delivery read model
  READ_CACHE_MAX_AGE_MS: def('1000', int(0, 60000), 'Longest an API process serves a cached access decision or latest value without reading the store again (0: no cache). Writes invalidate at once over Redis; this bounds a write that could not tell (docs/operations.md).'),
  // --- Push
  PUSH_ALLOW_PRIVATE_TARGETS: def('', optionalBool, 'Allow webhook URLs on loopback/private ranges and plain http (tests, local development). Default: on only in the local try-out, i.e. when DEMO_SEED is (neither REDIS_URL nor MONGO_URL set, or DEMO_SEED=true), so a receiver on localhost works there without a restart.'),
  PUSH_RETRY_SCHEDULE_S: def('5,300,1800,7200,18000,36000,36000', intList, 'Delays between webhook attempts (about a day in all).'),
  PUSH_TIMEOUT_MS: def('10000', int(100), 'Timeout of one webhook request.'),
  PUSH_DISABLE_AFTER_S: def('86400', int(1), 'A webhook failing without a success for this long is disabled.'),
  PUSH_CONCURRENCY: def('50', int(1, 1000), 'Webhook requests a push process sends at once (shared out over the PUSH_PARTITIONS).'),
  PUSH_SECRET_OVERLAP_S: def('86400', int(0), 'After a signing-secret rotation, how long the previous secret still signs (both signatures are sent).'),
  PUSH_RECONCILE_AFTER_S: def('600', int(1), 'A delivery still pending this long after its last change (or retrying this long past its due attempt) is looked up in the push queue, and given a fresh job if it has lost its own (Redis data lost).'),
  PUSH_RECONCILE_INTERVAL_S: def('60', int(1), 'How often each push process looks for deliveries that lost their queue job.'),
  PUSH_WATCH_CACHE_MS: def('2000', int(0, 600000), 'How long the push fan-out caches which pull items webhooks watch (0: read every batch).'),
} satisfies Record<string, Definition<unknown>>;

type Definitions = typeof DEFINITIONS;
type Parsed = { [K in keyof Definitions]: ReturnType<Definitions[K]['parse']> };
export type Config = Omit<Parsed, 'DEMO_SEED' | 'PUSH_ALLOW_PRIVATE_TARGETS' | 'MQTT_RECEIVE_MAXIMUM' | 'HOST' | 'MAPPINGS_WATCH'> & {
  /** Resolved: the explicit setting, else twice PIPELINE_BATCH_SIZE. */
  MQTT_RECEIVE_MAXIMUM: number;
  /** Resolved: the explicit setting, else 127.0.0.1 in the try-out (no REDIS_URL, no REDIS_CLUSTER_NODES, no MONGO_URL), else 0.0.0.0. */
  HOST: string;
  /** Resolved: the explicit setting, else on only without REDIS_URL, REDIS_CLUSTER_NODES and MONGO_URL. */
  DEMO_SEED: boolean;
  /** Resolved: the explicit setting, else DEMO_SEED (the try-out). */
  PUSH_ALLOW_PRIVATE_TARGETS: boolean;
  /** Resolved: the explicit setting, else DEMO_SEED (the try-out). */
  MAPPINGS_WATCH: boolean;
  /** Resolved origins (defaults applied). */
  publicUrl: string;
  consentUrl: string;
  portalUrl: string;
};

/** Reads the configuration from an environment (default: process.env). Throws {@link ConfigError}. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = readSettings(DEFINITIONS, env);
  const cfg = out as Config;
  // The seed prints a working API key on stdout, which is the log of a deployed process: by
  // default only the local try-out (private Redis, embedded SQLite) gets it.
  if (cfg.REDIS_CLUSTER_NODES !== undefined && cfg.REDIS_URL !== undefined) {
    throw new ConfigError('REDIS_CLUSTER_NODES', 'and REDIS_URL are both set: set REDIS_CLUSTER_NODES for a Redis Cluster, REDIS_URL for one Redis server');
  }
  cfg.DEMO_SEED = (out.DEMO_SEED as boolean | undefined) ?? (cfg.REDIS_URL === undefined && cfg.REDIS_CLUSTER_NODES === undefined && cfg.MONGO_URL === undefined);
  // The try-out's consumer runs its receiver on localhost: there webhooks may target it. A
  // deployment (or a process with DEMO_SEED=false) keeps the SSRF guard closed unless told.
  cfg.PUSH_ALLOW_PRIVATE_TARGETS = (out.PUSH_ALLOW_PRIVATE_TARGETS as boolean | undefined) ?? cfg.DEMO_SEED;
  // The try-out opens what a deployment keeps closed (private webhook targets, an open /metrics,
  // the demo key on stdout): it listens on loopback unless told otherwise.
  cfg.HOST = (out.HOST as string | undefined) ?? (cfg.REDIS_URL === undefined && cfg.REDIS_CLUSTER_NODES === undefined && cfg.MONGO_URL === undefined ? '127.0.0.1' : '0.0.0.0');
  // Someone editing a mapping in the try-out sees it served at once; a deployment reloads on command.
  cfg.MAPPINGS_WATCH = (out.MAPPINGS_WATCH as boolean | undefined) ?? cfg.DEMO_SEED;
  if (cfg.SECRET_KEY !== undefined && cfg.SECRET_KEY.length < 32) {
    throw new ConfigError('SECRET_KEY', 'must be at least 32 characters long');
  }
  // It guards erasure and provisioning: a short one is guessed, or is a placeholder left in.
  if (cfg.ADMIN_TOKEN !== undefined && cfg.ADMIN_TOKEN.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters long (or unset, to turn the admin API off)');
  }
  if (cfg.METRICS_TOKEN !== undefined && cfg.METRICS_TOKEN.length < 16) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters long (or unset, to leave /metrics open)');
  }
  // A share name may not hold the filter's separators or wildcards (MQTT 5, 4.8.2).
  if (cfg.MQTT_SHARE_GROUP !== undefined && !/^[^/+#]+$/.test(cfg.MQTT_SHARE_GROUP)) {
    throw new ConfigError('MQTT_SHARE_GROUP', 'may not contain "/", "+" or "#"');
  }
  cfg.MQTT_RECEIVE_MAXIMUM = (out.MQTT_RECEIVE_MAXIMUM as number | undefined) ?? 2 * cfg.PIPELINE_BATCH_SIZE;
  if (!/^[A-Za-z0-9_-]+$/.test(cfg.QUEUE_PREFIX)) {
    throw new ConfigError('QUEUE_PREFIX', 'may hold only letters, digits, "_" and "-"');
  }
  cfg.publicUrl = cfg.PUBLIC_URL ?? `http://localhost:${cfg.PORT}`;
  cfg.consentUrl = cfg.CONSENT_URL ?? cfg.publicUrl;
  cfg.portalUrl = cfg.PORTAL_URL ?? cfg.publicUrl;
  return cfg;
}

/**
 * {@link loadConfig} for entry points: an invalid setting prints its message (naming the
 * variable) and exits with 78 (EX_CONFIG) instead of a stack trace.
 */
/**
 * For entry points (the service, the simulator): reads `.env` into the environment first
 * ({@link applyEnvFile}), then the config; a bad setting prints its message and exits 78.
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    applyEnvFile(env);
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
}

/**
 * Reads `.env` into `env` (default: process.env) at start, as `.env.example` invites: a variable
 * already set in the environment, even to "", wins over the file. Call it before
 * {@link loadConfig}, into process.env itself, since adapter secrets are read from there too.
 *
 * ENV_FILE (read from the environment, not from a file) names another file, relative to `cwd`;
 * empty, none is read (tests that start service processes set it, so that a developer's .env
 * never leaks into them). A missing `.env` is fine; a missing ENV_FILE or an unreadable file
 * stops the start. Returns the names it set.
 */
export function applyEnvFile(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string[] {
  const named = env.ENV_FILE;
  if (named === '') return [];
  const path = resolve(cwd, named ?? '.env');
  const which = named === undefined ? `is unset, so "${path}" is read` : `names "${path}"`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (named === undefined && (err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ConfigError('ENV_FILE', `${which}, which cannot be read: ${(err as Error).message} (ENV_FILE= reads none)`);
  }
  if (typeof util.parseEnv !== 'function') {
    throw new ConfigError('ENV_FILE', `${which}, and reading it needs Node 20.12 or later (ENV_FILE= reads none)`);
  }
  const applied: string[] = [];
  for (const [name, value] of Object.entries(util.parseEnv(text))) {
    if (env[name] !== undefined || value === undefined) continue;
    env[name] = value;
    applied.push(name);
  }
  return applied;
}
