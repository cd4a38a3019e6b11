/**
 * The keyspace registry: every Redis key (and pub/sub channel) the service uses, declared once
 * with its builder, its hash tag and what a GDPR erasure does with it. Code builds its keys only
 * through these builders (test/queues/keyspace-registry.test.ts fails on a key built elsewhere),
 * so a renamed key cannot escape the erasure, and keys used together in one script,
 * transaction or pipeline share a hash tag and so a Redis Cluster slot
 * (test/queues/key-slots.test.ts checks every multi-key call).
 *
 * Every key starts with `<QUEUE_PREFIX>:`, a plain namespace. A hash tag (`{...}`: only the
 * first one counts) is added where keys go together, and never around the whole prefix: that
 * would put every key of the installation in one slot, on one master.
 */

/** What a GDPR erasure of a VIN does with a family's keys. */
export type KeyErasure =
  /** Nothing of a vehicle (or only what it cannot link to one): the reason is said. */
  | { by: 'none'; reason: string }
  /** The key names the VIN's pseudonym: the keys matching these SCAN patterns are deleted. */
  | { by: 'pseudonym'; patterns: (prefix: string, pseudonym: string, subscriptionId: string | undefined) => string[] }
  /** The value, sealed with the service key, holds the VIN at one of these places: opened and deleted if so (VIN-wide erasure only). */
  | { by: 'vin'; in: 'sealed-value'; pattern: (prefix: string) => string; vins: (opened: Record<string, unknown>) => unknown[] }
  /** A list whose JSON entries hold the VIN at one of these places: those entries are removed (VIN-wide erasure only). */
  | { by: 'vin'; in: 'list-entries'; pattern: (prefix: string) => string; vins: (entry: Record<string, unknown>) => unknown[] }
  /** A BullMQ queue whose jobs hold the VIN (sealed, or through their delivery row): swept job by job by src/gdpr/. */
  | { by: 'vin'; in: 'queue-jobs' };

export interface KeyFamily {
  /** Unique, dotted: the part that uses it, then what it is. */
  name: string;
  /** The module that reads and writes it. */
  owner: string;
  /** What the hash tag is, and why (or why none is needed). */
  tag: string;
  erasure: KeyErasure;
  /** Whether a key (or channel) of the installation with this prefix is one of this family's. */
  matches(prefix: string, key: string): boolean;
}

/** Escapes a value for a RegExp. */
const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Escapes Redis glob characters, so a value is matched literally inside a SCAN pattern. */
export const globLiteral = (value: string): string => value.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
/** A hash tag naming the installation and a part: keys with the same tag share one slot. */
export const hashTag = (prefix: string, ...parts: (string | number)[]): string => `{${[prefix, ...parts].join('.')}}`;

/** A family whose keys are `<prefix>:` followed by something matching `rest`. */
export function family(def: Omit<KeyFamily, 'matches'> & { rest: (prefix: string) => string }): KeyFamily {
  const { rest, ...fields } = def;
  return { ...fields, matches: (prefix, key) => new RegExp(`^${re(prefix)}:${rest(prefix)}$`).test(key) };
}

// --------------------------------------------------------------------------- BullMQ queues

/** The service's BullMQ queues, by their logical names (metrics and logs use these). */
export const QUEUE_NAMES = {
  harmonize: 'harmonize',
  push: 'push-deliveries',
  activation: 'vehicle-activations',
  poll: 'vehicle-polls',
  pipelineHousekeeping: 'pipeline-housekeeping',
  pushHousekeeping: 'push-housekeeping',
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/**
 * The BullMQ queue name of one partition of a queue (BullMQ puts its prefix, QUEUE_PREFIX, in
 * front: `<prefix>:<name>:<suffix>`): a hash tag per queue and partition,
 * `{<prefix>.<queue>.<partition>}`, so each BullMQ script's keys share a slot on a cluster and
 * the partitions spread over its masters. The same names on one Redis server, so that what the
 * suite checks there holds on a cluster. (BullMQ refuses `:` in a queue name, hence the dots.)
 */
export function bullQueueName(prefix: string, queue: QueueName, partition: number): string {
  return hashTag(prefix, queue, partition);
}

/** One key of a BullMQ queue, as BullMQ names it: `<prefix>:<BullMQ name>:<suffix>`. */
export const bullKey = (prefix: string, bullName: string, suffix: string): string => `${prefix}:${bullName}:${suffix}`;

function queueFamily(queue: QueueName, owner: string, erasure: KeyErasure = { by: 'vin', in: 'queue-jobs' }): KeyFamily {
  return family({
    name: `queue.${queue}`,
    owner,
    tag: '`{<prefix>.<queue>.<partition>}`: every key of one BullMQ queue (partition) in one slot',
    erasure,
    rest: (prefix) => `\\{${re(prefix)}\\.${re(queue)}\\.\\d+\\}:.*`,
  });
}

export const HARMONIZE_QUEUE_KEYS = queueFamily(QUEUE_NAMES.harmonize, 'src/pipeline/ (raw message batches, sealed)');
export const PUSH_QUEUE_KEYS = queueFamily(QUEUE_NAMES.push, 'src/push/ (webhook deliveries by transactionId; notices carry the VIN sealed)');
export const ACTIVATION_QUEUE_KEYS = queueFamily(QUEUE_NAMES.activation, 'src/management/ (activations, sealed)');
export const POLL_QUEUE_KEYS = queueFamily(QUEUE_NAMES.poll, 'src/transports/poll/ (one job per polled vehicle, sealed)');
/** The installation-wide housekeeping of a role (one partition, `{<prefix>.<role>-housekeeping.0}`): job schedulers and their runs. */
const HOUSEKEEPING_ERASURE: KeyErasure = { by: 'none', reason: 'a job is only its name (history retention, a reconciler): no vehicle' };
export const PIPELINE_HOUSEKEEPING_QUEUE_KEYS = queueFamily(QUEUE_NAMES.pipelineHousekeeping, 'src/queues/installation-schedule.ts (the pipeline role)', HOUSEKEEPING_ERASURE);
export const PUSH_HOUSEKEEPING_QUEUE_KEYS = queueFamily(QUEUE_NAMES.pushHousekeeping, 'src/queues/installation-schedule.ts (the push role)', HOUSEKEEPING_ERASURE);

// --------------------------------------------------------------------------- rate limits

/**
 * The counters of the data API's limits (src/rate-limit/limits.ts). The fixed-window limiter
 * appends `:<window start>` to every counter key. The subscription id is the hash tag, so one
 * request's subscription and vehicle counters go to Redis in one script.
 */
export const RATE_LIMIT_SUBSCRIPTION = {
  ...family({
    name: 'rate-limit.subscription',
    owner: 'src/rate-limit/limits.ts',
    tag: '`{<subscriptionId>}`: counted together with the vehicle counters of the same request',
    erasure: { by: 'none', reason: 'counts a subscription\'s requests, names no vehicle' },
    rest: () => 'rl:\\{[^}]*\\}:s:\\d+',
  }),
  key: (prefix: string, subscriptionId: string) => `${prefix}:rl:{${subscriptionId}}:s`,
};

export const RATE_LIMIT_VEHICLE = {
  ...family({
    name: 'rate-limit.vehicle',
    owner: 'src/rate-limit/limits.ts',
    tag: '`{<subscriptionId>}`: counted together with the subscription counter of the same request',
    erasure: {
      by: 'pseudonym',
      patterns: (prefix, pseudonym, sub) => [`${globLiteral(prefix)}:rl:{${sub === undefined ? '*' : globLiteral(sub)}}:v:${globLiteral(pseudonym)}:*`],
    },
    rest: () => 'rl:\\{[^}]*\\}:v:[^:]+:\\d+',
  }),
  key: (prefix: string, subscriptionId: string, pseudonym: string) => `${prefix}:rl:{${subscriptionId}}:v:${pseudonym}`,
  /** The end of a vehicle counter's key (before the window), to forget it in a process. */
  suffix: (pseudonym: string, subscriptionId?: string) => (subscriptionId === undefined ? `:v:${pseudonym}` : `:{${subscriptionId}}:v:${pseudonym}`),
};

export const RATE_LIMIT_AUTH_FAILURE = {
  ...family({
    name: 'rate-limit.auth-failure',
    owner: 'src/rate-limit/auth-failures.ts',
    tag: 'none: each subject (address, API key) is counted in a call of its own',
    erasure: { by: 'none', reason: 'a keyed hash of a client address or an API key' },
    rest: () => 'rl:authfail:[^:]+:\\d+',
  }),
  key: (prefix: string, subjectPseudonym: string) => `${prefix}:rl:authfail:${subjectPseudonym}`,
};

export const RATE_LIMIT_PORTAL = {
  ...family({
    name: 'rate-limit.portal',
    owner: 'src/routes/consent/portal-limit.ts',
    tag: 'none: one key per call',
    erasure: { by: 'none', reason: 'a keyed hash of a client address' },
    rest: () => 'rl:portal:[^:]+:\\d+',
  }),
  key: (prefix: string, addressPseudonym: string) => `${prefix}:rl:portal:${addressPseudonym}`,
};

export const RATE_LIMIT_WEBHOOK_TEST = {
  ...family({
    name: 'rate-limit.webhook-test',
    owner: 'src/push/webhooks/test-event.ts',
    tag: '`{<subscriptionId>}` (one key per call; kept as it was)',
    erasure: { by: 'none', reason: 'counts a subscription\'s test events' },
    rest: () => 'rl:webhook-test:\\{[^}]*\\}:\\d+',
  }),
  key: (prefix: string, subscriptionId: string) => `${prefix}:rl:webhook-test:{${subscriptionId}}`,
};

// --------------------------------------------------------------------------- push

/**
 * One webhook endpoint's last admitted update of a vehicle's item: the scope is the
 * subscription, `<subscriptionId>#<endpointId>` for an endpoint other than the default one
 * (each endpoint has its own interval), the subscription alone for the default one (its keys
 * as before endpoints existed).
 */
export const PUSH_THROTTLE = {
  ...family({
    name: 'push.update-throttle',
    owner: 'src/push/fanout/update-throttle.ts',
    tag: 'none: one key per script call',
    erasure: {
      by: 'pseudonym',
      patterns: (prefix, pseudonym, sub) =>
        sub === undefined
          ? [`${globLiteral(prefix)}:push:throttle:*:${globLiteral(pseudonym)}:*`]
          : [`${globLiteral(prefix)}:push:throttle:${globLiteral(sub)}:${globLiteral(pseudonym)}:*`, `${globLiteral(prefix)}:push:throttle:${globLiteral(sub)}#*:${globLiteral(pseudonym)}:*`],
    },
    rest: () => 'push:throttle:[^:#]+(#[^:]+)?:[^:]+:.+',
  }),
  key: (prefix: string, subscriptionId: string, pseudonym: string, item: string, endpointId?: string) =>
    `${prefix}:push:throttle:${endpointId === undefined ? subscriptionId : `${subscriptionId}#${endpointId}`}:${pseudonym}:${item}`,
};

// --------------------------------------------------------------------------- consent portal

/** Values sealed with the service key that name the VIN the browser proved (src/consent/withdrawal-session.ts). */
const withdrawalVins = (w: Record<string, unknown>) => [w.vin, (w.proof as { vin?: unknown } | undefined)?.vin];

export const WITHDRAWAL_SESSION = {
  ...family({
    name: 'consent.withdrawal-session',
    owner: 'src/consent/withdrawal-session.ts',
    tag: 'none: one key per command',
    erasure: { by: 'vin', in: 'sealed-value', pattern: (prefix) => `${globLiteral(prefix)}:withdraw:session:*`, vins: withdrawalVins },
    rest: () => 'withdraw:session:[^:]+',
  }),
  key: (prefix: string, sessionHash: string) => `${prefix}:withdraw:session:${sessionHash}`,
};

export const WITHDRAWAL_STATE = {
  ...family({
    name: 'consent.withdrawal-state',
    owner: 'src/consent/withdrawal-session.ts',
    tag: 'none: one key per command',
    erasure: { by: 'vin', in: 'sealed-value', pattern: (prefix) => `${globLiteral(prefix)}:withdraw:state:*`, vins: withdrawalVins },
    rest: () => 'withdraw:state:[^:]+',
  }),
  key: (prefix: string, stateHash: string) => `${prefix}:withdraw:state:${stateHash}`,
};

// --------------------------------------------------------------------------- pipeline

export const FIRST_RECEPTION = {
  ...family({
    name: 'pipeline.first-reception',
    owner: 'src/pipeline/first-reception.ts',
    tag: 'none: one key per transaction',
    erasure: {
      by: 'none',
      reason: 'named by a hash of one message\'s bytes and holding only when it arrived: nothing links it to a VIN without the message, which the erasure removes; gone after a day',
    },
    rest: () => 'first-reception:[^:]+',
  }),
  key: (prefix: string, messageId: string) => `${prefix}:first-reception:${messageId}`,
};

export const POLL_API_RATE = {
  ...family({
    name: 'poll.api-rate',
    owner: 'src/transports/poll/rate-limiter.ts',
    tag: '`{<prefix>.poll.<manufacturer>}`: the next slot and the pause are read together in one script',
    erasure: { by: 'none', reason: 'one manufacturer\'s request rate' },
    rest: (prefix) => `poll:\\{${re(prefix)}\\.poll\\.[^}]+\\}:(next-slot|paused-until)`,
  }),
  key: (prefix: string, manufacturer: string, which: 'next-slot' | 'paused-until') => `${prefix}:poll:${hashTag(prefix, 'poll', manufacturer)}:${which}`,
};

// --------------------------------------------------------------------------- main, console

export const SECRET_KEY_FINGERPRINT = {
  ...family({
    name: 'main.secret-key-fingerprint',
    owner: 'src/main/secret-key-agreement.ts',
    tag: 'none: one key',
    erasure: { by: 'none', reason: 'a keyed hash of a constant' },
    rest: () => 'secret-key-fingerprint',
  }),
  key: (prefix: string) => `${prefix}:secret-key-fingerprint`,
};

export const CONSOLE_SIGNED_OUT = {
  ...family({
    name: 'console.signed-out',
    owner: 'src/console/session.ts',
    tag: 'none: one key per command',
    erasure: { by: 'none', reason: 'a hash of a signed-out console session\'s random id' },
    rest: () => 'console:out:[^:]+',
  }),
  key: (prefix: string, sessionIdHash: string) => `${prefix}:console:out:${sessionIdHash}`,
};

/**
 * The pipeline charts' samples: one hash per bucket of each range (`1h` by the minute up to `7d`
 * by the hour). One tag for every range: each flush writes the current bucket of every range in
 * one transaction, so that a failed flush, carried over whole to the next, counts nothing twice;
 * a range's chart reads its buckets in one pipeline. A few commands per process and interval.
 */
export const CONSOLE_SAMPLES = {
  ...family({
    name: 'console.samples',
    owner: 'src/metrics/samples.ts (written), src/console/series.ts (read)',
    tag: '`{<prefix>.console-samples}`: a flush writes every range\'s bucket in one transaction; a chart reads its range\'s buckets in one pipeline',
    erasure: { by: 'none', reason: 'counts per manufacturer, transport, outcome and queue, per minute to per hour' },
    rest: (prefix) => `console:\\{${re(prefix)}\\.console-samples\\}:(1h|6h|24h|7d):\\d+`,
  }),
  key: (prefix: string, range: '1h' | '6h' | '24h' | '7d', bucketMs: number) => `${prefix}:console:${hashTag(prefix, 'console-samples')}:${range}:${bucketMs}`,
};

export const CONSOLE_REPROCESS_RUN = {
  ...family({
    name: 'console.reprocess-run',
    owner: 'src/console/quarantine.ts',
    tag: 'none: one key per command',
    erasure: { by: 'none', reason: 'quarantine ids and counts of one reprocessing run' },
    rest: () => 'console:reprocess:[^:]+',
  }),
  key: (prefix: string, token: string) => `${prefix}:console:reprocess:${token}`,
};

// --------------------------------------------------------------------------- ingest, mappings

/**
 * The sessions of one MQTT share group (MQTT_SHARE_GROUP) this installation knows, client id →
 * when the broker drops the session (src/transports/mqtt/share-members.ts).
 */
export const MQTT_SHARE_MEMBERS = {
  ...family({
    name: 'ingest.mqtt-share-members',
    owner: 'src/transports/mqtt/share-members.ts',
    tag: 'none: one key per script call',
    erasure: { by: 'none', reason: 'the MQTT client ids of the service\'s own subscriber sessions' },
    rest: () => 'mqtt-share-members:[^:]+',
  }),
  key: (prefix: string, group: string) => `${prefix}:mqtt-share-members:${group}`,
};

/** The outcomes of mapping reloads, newest first, of every process (src/mapping-cases/reload-bus.ts). */
export const MAPPING_RELOADS = {
  ...family({
    name: 'mappings.reload-outcomes',
    owner: 'src/mapping-cases/reload-bus.ts',
    tag: 'none: one key per transaction',
    erasure: { by: 'none', reason: 'which process reloaded which mappings, when, with what outcome' },
    rest: () => 'mappings:reloads',
  }),
  key: (prefix: string) => `${prefix}:mappings:reloads`,
};

// --------------------------------------------------------------------------- pub/sub channels

/**
 * How many sharded channels the read-model invalidations spread over on a cluster: fixed, since
 * every process must agree; each is its own slot, so they spread over the masters.
 */
export const INVALIDATION_SHARDS = 16;

export const INVALIDATION_BROADCAST = {
  ...family({
    name: 'channel.invalidation-broadcast',
    owner: 'src/read-model/bus.ts',
    tag: 'none: a classic pub/sub channel, which every node of a cluster relays (erasures only: rare)',
    erasure: { by: 'none', reason: 'a channel: nothing is kept' },
    rest: () => 'cache-invalidation',
  }),
  channel: (prefix: string) => `${prefix}:cache-invalidation`,
};

export const INVALIDATION_DATA = {
  ...family({
    name: 'channel.invalidation-data',
    owner: 'src/read-model/bus.ts',
    tag: '`{<prefix>.invalidation.<n>}` on a cluster: a sharded channel (SPUBLISH) of its own slot; one plain channel on a single Redis',
    erasure: { by: 'none', reason: 'a channel: nothing is kept' },
    rest: (prefix) => `cache-invalidation:(data|\\{${re(prefix)}\\.invalidation\\.\\d+\\})`,
  }),
  channel: (prefix: string, shard: number | null) => (shard === null ? `${prefix}:cache-invalidation:data` : `${prefix}:cache-invalidation:${hashTag(prefix, 'invalidation', shard)}`),
};

/**
 * The channel of mapping reload requests (src/mapping-cases/reload-bus.ts). A classic channel on
 * one Redis server; a sharded one (SPUBLISH) on a cluster: its subscribers all listen on the
 * master that owns its slot, so the count SPUBLISH answers is every process that got the request
 * (a classic PUBLISH on a cluster counts only the subscribers of the node it was sent to).
 */
export const MAPPING_RELOAD_CHANNEL = {
  ...family({
    name: 'channel.mapping-reload',
    owner: 'src/mapping-cases/reload-bus.ts',
    tag: 'none: one channel, its own slot on a cluster (sharded)',
    erasure: { by: 'none', reason: 'a channel: nothing is kept' },
    rest: () => 'mappings:reload',
  }),
  channel: (prefix: string) => `${prefix}:mappings:reload`,
};

/** The service's own families, in one list ({@link keyFamilies} adds those a loaded part registered). */
export const KEY_FAMILIES: readonly KeyFamily[] = [
  HARMONIZE_QUEUE_KEYS,
  PUSH_QUEUE_KEYS,
  ACTIVATION_QUEUE_KEYS,
  POLL_QUEUE_KEYS,
  PIPELINE_HOUSEKEEPING_QUEUE_KEYS,
  PUSH_HOUSEKEEPING_QUEUE_KEYS,
  RATE_LIMIT_SUBSCRIPTION,
  RATE_LIMIT_VEHICLE,
  RATE_LIMIT_AUTH_FAILURE,
  RATE_LIMIT_PORTAL,
  RATE_LIMIT_WEBHOOK_TEST,
  PUSH_THROTTLE,
  WITHDRAWAL_SESSION,
  WITHDRAWAL_STATE,
  FIRST_RECEPTION,
  POLL_API_RATE,
  SECRET_KEY_FINGERPRINT,
  CONSOLE_SIGNED_OUT,
  CONSOLE_SAMPLES,
  CONSOLE_REPROCESS_RUN,
  MQTT_SHARE_MEMBERS,
  MAPPING_RELOADS,
  INVALIDATION_BROADCAST,
  INVALIDATION_DATA,
  MAPPING_RELOAD_CHANNEL,
];

/**
 * Families of a part that this process loaded on demand (the virtual wing, when SIMULATOR=on):
 * declared by that part, registered by the composition root when it loads it (src/main/wing.ts).
 */
const registered: KeyFamily[] = [];

/** Adds a loaded part's families; the same family again is ignored, another under a taken name refused. */
export function registerKeyFamilies(families: readonly KeyFamily[]): void {
  for (const f of families) {
    const taken = [...KEY_FAMILIES, ...registered].find((g) => g.name === f.name);
    if (taken === f) continue;
    if (taken) throw new Error(`key family ${f.name} is declared twice (${taken.owner}, ${f.owner})`);
    registered.push(f);
  }
}

/** Every family this process knows, in one list: the erasure walks it, the tests check keys against it. */
export function keyFamilies(): readonly KeyFamily[] {
  return [...KEY_FAMILIES, ...registered];
}

/** The family a key of the installation belongs to, or undefined: built outside the registry. */
export function familyOf(prefix: string, key: string): KeyFamily | undefined {
  return keyFamilies().find((f) => f.matches(prefix, key));
}
