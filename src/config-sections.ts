import type { Config } from './config.ts';

/**
 * The settings by section, the headings of DEFINITIONS in src/config.ts. A part's context
 * (src/consent/context.ts and the like, built in src/main/contexts.ts) carries the sections it
 * reads and no other, so a signature says which settings a part depends on and a test builds
 * just those. The simulator's settings are the virtual wing's own, so no part of the service
 * carries them. test/config-sections.test.ts checks that every other setting is in exactly one.
 */
export const SECTIONS = {
  http: ['PORT', 'HOST', 'PUBLIC_URL', 'CONSENT_URL', 'PORTAL_URL', 'publicUrl', 'consentUrl', 'portalUrl', 'ADMIN_TOKEN', 'BODY_LIMIT_BYTES', 'REQUEST_TIMEOUT_MS', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 'TRUST_PROXY'],
  console: ['CONSOLE_SESSION_MINUTES', 'CONSOLE_SAMPLE_SECONDS'],
  process: ['ROLES', 'LOG_LEVEL', 'LOG_PRETTY', 'SHUTDOWN_TIMEOUT_MS', 'PROBE_PORT', 'METRICS_TOKEN', 'DATA_DIR', 'SECRET_KEY', 'DEMO_SEED'],
  queues: [
    'REDIS_URL', 'REDIS_CLUSTER_NODES', 'QUEUE_PREFIX', 'HARMONIZE_PARTITIONS', 'PUSH_PARTITIONS', 'REDIS_WAIT_REPLICAS', 'REDIS_WAIT_TIMEOUT_MS',
    'PIPELINE_CONCURRENCY', 'PIPELINE_BATCH_SIZE', 'PIPELINE_BATCH_MAX_BYTES', 'INGEST_MAX_RECORDS', 'INGEST_MAX_FUTURE_S', 'PIPELINE_BATCH_MAX_WAIT_MS',
    'PIPELINE_LOCK_DURATION_MS', 'PIPELINE_STALLED_INTERVAL_MS', 'JOB_RETENTION_COMPLETED_S', 'JOB_RETENTION_FAILED_S',
  ],
  poller: [
    'POLL_CONCURRENCY', 'POLL_INTERVAL_S', 'POLL_REQUEST_TIMEOUT_MS', 'POLL_BACKOFF_BASE_MS', 'POLL_BACKOFF_MAX_S', 'POLL_LOCK_DURATION_MS',
    'POLL_STALLED_INTERVAL_MS', 'POLL_MAX_PAGE_BYTES', 'POLL_BAD_PAGE_TRIES', 'POLL_RECONCILE_INTERVAL_S',
  ],
  store: [
    'MONGO_URL', 'MONGO_DB', 'SQLITE_BUSY_TIMEOUT_MS', 'SQLITE_ERASURE_VACUUM_MAX_MB', 'SQLITE_MMAP_MB', 'HISTORY_RETENTION_DAYS', 'HISTORY_PURGE_INTERVAL_S', 'HISTORY_CLUSTER_INTERVAL_S',
    'DELIVERY_LOG_RETENTION_DAYS', 'CONSENT_PROCESS_RETENTION_DAYS',
  ],
  mqtt: ['MQTT_URL', 'MQTT_HOST', 'MQTT_PORT', 'MQTT_MAX_PAYLOAD_BYTES', 'MQTT_CLIENT_ID', 'MQTT_SUBSCRIBER', 'MQTT_SHARE_GROUP', 'MQTT_SESSION_EXPIRY_S', 'MQTT_RECEIVE_MAXIMUM'],
  quarantine: ['QUARANTINE_MAX_RAW_BYTES', 'QUARANTINE_PAGE_MAX_BYTES'],
  mapping: ['MAPPING_TIMEOUT_MS', 'MAPPING_MAX_DEPTH', 'MAPPING_SANDBOX_MEMORY_MB', 'MAPPING_COMPILER', 'MAPPINGS_WATCH'],
  consent: ['CONSENT_CODE_TTL_S', 'OEM_TOKEN_TIMEOUT_MS'],
  rateLimits: [
    'RATE_LIMIT_SUBSCRIPTION_MAX', 'RATE_LIMIT_SUBSCRIPTION_WINDOW_S', 'RATE_LIMIT_VEHICLE_MAX', 'RATE_LIMIT_VEHICLE_WINDOW_S',
    'RATE_LIMIT_PORTAL_MAX', 'RATE_LIMIT_PORTAL_WINDOW_S', 'RATE_LIMIT_AUTH_FAILURE_MAX', 'RATE_LIMIT_AUTH_FAILURE_WINDOW_S',
  ],
  readModel: ['READ_CACHE_MAX_AGE_MS'],
  push: [
    'PUSH_ALLOW_PRIVATE_TARGETS', 'PUSH_RETRY_SCHEDULE_S', 'PUSH_TIMEOUT_MS', 'PUSH_DISABLE_AFTER_S', 'PUSH_CONCURRENCY', 'PUSH_SECRET_OVERLAP_S',
    'PUSH_RECONCILE_AFTER_S', 'PUSH_RECONCILE_INTERVAL_S', 'PUSH_WATCH_CACHE_MS',
  ],
} as const satisfies Record<string, readonly (keyof Config)[]>;

export type Section = keyof typeof SECTIONS;

/** The settings of these sections: `Settings<'queues' | 'push'>`. */
export type Settings<S extends Section> = Pick<Config, (typeof SECTIONS)[S][number]>;

/** A copy of the settings of these sections only: what main puts in a part's context. */
export function settings<S extends Section>(config: Config, ...sections: S[]): Settings<S> {
  const out: Record<string, unknown> = {};
  for (const s of sections) for (const key of SECTIONS[s]) out[key] = config[key];
  return out as Settings<S>;
}
