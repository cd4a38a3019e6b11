import { vinOfTopic } from '../../adapters/topics.ts';
import type { TransportKind } from '../kind.ts';

/**
 * MQTT: `topics` are MQTT topic filters (`+` for one level); the last level of a message's
 * topic is its message type. Publishers log in at the embedded broker (./embedded-broker.ts),
 * or the service subscribes at an external one (./broker-subscriber.ts).
 */
export interface MqttTransport {
  kind: 'mqtt';
  topics: string[];
  /** Username at the embedded broker (the password: src/adapters/secrets.ts). */
  username: string;
  /** Environment variable holding the broker password; unset: derived from SECRET_KEY. */
  passwordEnv?: string;
  /**
   * The topic level (counted from 0) that names the vehicle, e.g. 2 in `virtual/v1/<VIN>/telemetry`.
   * A message whose mapped VIN is another is quarantined (VIN_MISMATCH). Unset: the topic names no vehicle.
   */
  vinTopicLevel?: number;
}

export const mqttTransport: TransportKind<MqttTransport> = {
  kind: 'mqtt',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'topics', 'username'],
    properties: {
      kind: { const: 'mqtt' },
      topics: {
        type: 'array',
        minItems: 1,
        // A filter with a literal last level (the message type); `+` only for whole levels.
        items: { type: 'string', pattern: '^([A-Za-z0-9_-]+|\\+)(/([A-Za-z0-9_-]+|\\+))*/[A-Za-z0-9_-]+$' },
      },
      username: { type: 'string', minLength: 1 },
      passwordEnv: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
      // The topic level (from 0) that names the vehicle; a `+` in every filter (problems below).
      vinTopicLevel: { type: 'integer', minimum: 0, maximum: 31 },
    },
  },
  problems(t, manifest) {
    const problems: string[] = [];
    const unmapped = t.topics.map((f) => f.split('/').at(-1) ?? '').filter((type) => !(type in manifest.messageTypes));
    if (unmapped.length > 0) problems.push(`topics end in message types without a mapping: ${unmapped.join(', ')}`);
    const level = t.vinTopicLevel;
    // The last level is the message type; the VIN's level must be a wildcard, one per vehicle.
    const noVin = level === undefined ? [] : t.topics.filter((f) => f.split('/').slice(0, -1)[level] !== '+');
    if (noVin.length > 0) {
      problems.push(`transport.vinTopicLevel ${level} must be a "+" level before the message type in every topic filter, not in: ${noVin.join(', ')}`);
    }
    return problems;
  },
  secretEnv: (t) => t.passwordEnv,
  credentials: (t, secret) => ({ username: t.username, password: secret }),
  conflict(t, other, otherFile) {
    // The embedded broker keeps one login per username: the second would replace the first's.
    if (t.username === other.username) return `transport.username "${t.username}" is already the broker login of ${otherFile}; each manufacturer needs its own`;
    // The external-broker subscriber gives a message to whichever adapter's filter matches first.
    for (const filter of t.topics) {
      const clash = other.topics.find((f) => filtersOverlap(f, filter));
      if (clash) {
        return `topic filter "${filter}" overlaps "${clash}" of ${otherFile}: a topic both match could reach either manufacturer; give each its own first level`;
      }
    }
    return null;
  },
  vinOf: (t, message) => vinOfTopic(message.topic, t.vinTopicLevel),
};

/** Whether one topic can match both filters (`+` is one whole level; the schema allows no `#`). */
export function filtersOverlap(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  return x.length === y.length && x.every((level, i) => level === y[i] || level === '+' || y[i] === '+');
}
