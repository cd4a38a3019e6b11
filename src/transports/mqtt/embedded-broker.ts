import { Aedes, type AuthenticateError, type Client as AedesClient } from 'aedes';
import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import type { Adapter } from '../../adapters/manifest.ts';
import { metrics } from '../../metrics/metrics.ts';
import type { Running } from '../../running.ts';
import type { TransportDeps } from '../deps.ts';
import { adapterSecret } from '../../adapters/secrets.ts';
import { createAcceptor } from '../accept.ts';
import { mqttArrival } from './arrival.ts';
import { limitedConnection } from './frame-limit.ts';
import { topicMatcher } from '../../adapters/topics.ts';

/** A packet larger than this (16 MiB) closes its connection; see startEmbeddedBroker. */
const MAX_PUBLISH_FRAME_BYTES = 16 * 1024 * 1024;

interface Publisher {
  adapter: Adapter;
  allowed: (topic: string) => boolean;
}

const digest = (s: string | Buffer) => createHash('sha256').update(s).digest();

function authError(message: string, returnCode: 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

/**
 * The embedded aedes broker on MQTT_HOST:MQTT_PORT. Manufacturers log in with their adapter's
 * username and secret (src/adapters/secrets.ts) and may publish only to their own topics;
 * subscribing is refused. OWNED BY THE PIPELINE WORK.
 *
 * No publish is lost between PUBACK and the queue: aedes writes PUBACK before its `published`
 * hook runs (a PUBACK hands the message over to us), so the durable enqueue happens inside
 * `authorizePublish`, which runs first. When the queue refuses the message, the callback gets the
 * error: aedes closes the connection without PUBACK and the client re-sends on reconnect. A
 * publish refused for good (another manufacturer's topic, over MQTT_MAX_PAYLOAD_BYTES) is
 * acknowledged and dropped instead, counted and logged.
 */
export async function startEmbeddedBroker(
  services: TransportDeps,
  opts: { port?: number; host?: string } = {},
): Promise<Running & { url: string; port: number }> {
  const { config, logger } = services;
  const acceptor = createAcceptor(services);
  const byUsername = new Map<string, { publisher: Publisher; secret: Buffer }>();
  for (const adapter of services.adapters.list()) {
    const t = adapter.manifest.transport;
    if (t.kind !== 'mqtt') continue;
    // Usernames are unique: the registry refuses two manifests with one (src/adapters/conflicts.ts).
    byUsername.set(t.username, {
      publisher: { adapter, allowed: topicMatcher(t.topics) },
      secret: digest(adapterSecret(config, adapter)),
    });
  }
  const sessions = new WeakMap<AedesClient, Publisher>();

  const aedes = await Aedes.createBroker({
    maxTopicLevels: 16,
    connectTimeout: 10_000,
    drainTimeout: 10_000,
    keepaliveLimit: 600,
    queueLimit: 42,
    authenticate(client, username, password, done) {
      const entry = username === undefined ? undefined : byUsername.get(username);
      // Hash both sides so the constant-time comparison sees equal lengths.
      const ok = entry !== undefined && password !== undefined && timingSafeEqual(digest(password), entry.secret);
      if (!ok) {
        metrics.ingestRejected.inc({ manufacturer: entry?.publisher.adapter.manifest.id ?? 'unknown', reason: 'mqtt_auth' });
        return done(authError('bad username or password', 4), false);
      }
      sessions.set(client, entry.publisher);
      done(null, true);
    },
    authorizeSubscribe(_client, _sub, done) {
      done(new Error('subscribing is not allowed on the ingest broker'));
    },
    authorizePublish(client, packet, done) {
      const publisher = client ? sessions.get(client) : undefined;
      if (!publisher) return done(new Error('not authenticated'));
      const manufacturer = publisher.adapter.manifest.id;
      // Nothing is kept in the broker: the queue is the message's only home.
      packet.retain = false;
      if (packet.topic.startsWith('$SYS/')) return done(new Error('$SYS topics are reserved'));
      // Refused for good: acknowledged and dropped (MQTT-3.3.5-2 allows either that or closing
      // the connection). Closed, the client would re-send it first on every reconnect, and
      // nothing it publishes after it would ever get through. Nobody subscribes here, so an
      // authorized packet that is not queued goes nowhere.
      if (!publisher.allowed(packet.topic)) {
        metrics.ingestRejected.inc({ manufacturer, reason: 'mqtt_topic' });
        logger.warn({ manufacturer }, 'MQTT publish outside the manufacturer topics acknowledged and dropped');
        return done(null);
      }
      // Too large: acknowledged and dropped as well (accept() counts it).
      const bytes = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
      acceptor
        .accept(mqttArrival(config, manufacturer, packet.topic, bytes, { consequence: 'closing the connection without PUBACK' }))
        .then(
          () => done(null),
          (err: unknown) => done(err as Error),
        );
    },
  });
  // Topics hold VINs: errors are logged without them.
  aedes.on('clientError', (_client, err) => logger.debug({ err: err.message }, 'MQTT client error'));
  aedes.on('connectionError', (_client, err) => logger.debug({ err: err.message }, 'MQTT connection error'));

  // aedes holds a whole packet in memory before any check. A CONNECT (before authentication)
  // announcing more than 64 KB closes the connection at its first bytes. A publish over
  // MQTT_MAX_PAYLOAD_BYTES is acknowledged and dropped in authorizePublish (a closed connection
  // would have its client re-send it for ever); only one announcing more than
  // MAX_PUBLISH_FRAME_BYTES, far beyond any telemetry, closes the connection.
  const limits = { maxPacketBytes: Math.max(MAX_PUBLISH_FRAME_BYTES, 2 * config.MQTT_MAX_PAYLOAD_BYTES), maxConnectBytes: 64 * 1024 };
  const server = createServer((socket) =>
    aedes.handle(
      limitedConnection(socket, limits, (err) => {
        metrics.ingestRejected.inc({ manufacturer: 'unknown', reason: 'mqtt_packet_too_large' });
        logger.warn({ err: err.message }, 'MQTT connection closed: packet over the size limit');
      }),
    ),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? config.MQTT_PORT, opts.host ?? config.MQTT_HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? config.MQTT_HOST;
  services.readiness.set('mqtt-broker', async () => {
    if (!server.listening || aedes.closed) throw new Error('the embedded MQTT broker is not listening');
  });

  return {
    name: 'mqtt-broker',
    url: `mqtt://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    async close() {
      services.readiness.delete('mqtt-broker');
      // Stop accepting first; the server's close completes once aedes has closed every client.
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await serverClosed;
      await acceptor.close();
    },
  };
}
