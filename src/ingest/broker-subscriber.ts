import mqtt, { type MqttClient } from 'mqtt';
import type { Running } from '../running.ts';
import type { TransportDeps } from './deps.ts';
import type { Adapter } from '../adapters/manifest.ts';
import { createAcceptor, type Arrival } from './accept.ts';
import { messageTypeOf, topicMatcher } from '../adapters/topics.ts';

/**
 * The subscriber on an external broker (MQTT_URL): a persistent session (fixed client id,
 * clean: false, MQTT 5 with a session expiry) subscribed at QoS 1 to every MQTT adapter's topics. A message is acknowledged
 * only after its durable enqueue (mqtt.js `customHandleAcks`); when the queue refuses it, no
 * PUBACK is sent and the connection is dropped, so the broker delivers it again on reconnect.
 *
 * mqtt.js handles a connection's packets one after the other, waiting for each acknowledgement,
 * so each message is queued as soon as it arrives (no batching wait): about one Redis round
 * trip per message. Manufacturers' own authentication and topic rights are the external
 * broker's job (its ACLs).
 */
/** How long the broker keeps the session (and queues our messages) while we are away: a week. */
const SESSION_EXPIRY_S = 7 * 24 * 3600;

export async function startExternalSubscriber(
  services: TransportDeps,
  mqttUrl: string,
  opts: { clientId?: string } = {},
): Promise<Running & { client: MqttClient }> {
  const { config, logger } = services;
  const acceptor = createAcceptor(services, { maxWaitMs: 0 });
  const routes = services.adapters
    .list()
    .filter((a): a is Adapter & { manifest: { transport: { kind: 'mqtt' } } } => a.manifest.transport.kind === 'mqtt')
    .map((adapter) => ({ adapter, matches: topicMatcher(adapter.manifest.transport.topics) }));
  const topics = routes.flatMap((r) => r.adapter.manifest.transport.topics);

  /** A publish on one of our topics, for accept(); null when it is not ours. */
  const arrival = (topic: string, payload: Buffer | string, refused: Arrival['refused']): Arrival | null => {
    // At most one route matches: the registry refuses overlapping filters (src/adapters/conflicts.ts).
    const route = routes.find((r) => r.matches(topic));
    if (!route) return null; // not ours (a broader subscription of someone else)
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    return { manufacturer: route.adapter.manifest.id, transport: 'mqtt', messages: [{ messageType: messageTypeOf(topic), topic, bytes }], refused };
  };

  const client = mqtt.connect(mqttUrl, {
    clientId: opts.clientId ?? config.MQTT_CLIENT_ID ?? `${config.QUEUE_PREFIX}-ingest`,
    // customHandleAcks needs MQTT 5 in mqtt.js; with it, clean: false only keeps the session
    // across a disconnect when it has an expiry interval.
    protocolVersion: 5,
    clean: false,
    properties: { sessionExpiryInterval: SESSION_EXPIRY_S },
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    customHandleAcks(topic, payload, _packet, done) {
      const a = arrival(topic, payload, { consequence: 'reconnecting without PUBACK' });
      if (!a) return done(0); // not ours: nothing to keep
      // Too large: acknowledged and dropped (accept() counts it).
      acceptor.accept(a).then(
        () => done(0),
        (err: unknown) => {
          done(err as Error);
          // The broker re-sends unacknowledged messages of the persistent session on reconnect.
          client.stream?.destroy();
        },
      );
    },
  });
  // mqtt.js calls customHandleAcks for QoS 1 and 2 only. A manufacturer publishing at QoS 0
  // asked for at most once: queued as well, and if the queue refuses it there is no
  // acknowledgement to withhold, so it is counted and logged as lost.
  client.on('message', (topic, payload, packet) => {
    if (packet.qos !== 0) return;
    const a = arrival(topic, payload, { consequence: 'it is lost (publish at QoS 1 to have it re-sent)', lost: true });
    // Refused: counted and logged by accept(); there is nothing to withhold.
    if (a) acceptor.accept(a).catch(() => {});
  });
  client.on('error', (err) => logger.warn({ err: err.message }, 'external MQTT broker error'));
  client.on('connect', (connack) => {
    logger.info({ sessionPresent: connack.sessionPresent }, 'connected to the external MQTT broker');
    // Subscribing again on a resumed session is harmless and repairs a lost subscription.
    client.subscribe(
      topics.map((t) => t),
      { qos: 1 },
      (err) => {
        if (err) logger.error({ err: err.message }, 'subscribing on the external MQTT broker failed');
      },
    );
  });
  services.readiness.set('mqtt-subscriber', async () => {
    if (!client.connected) throw new Error('not connected to the external MQTT broker');
  });

  return {
    name: 'mqtt-subscriber',
    client,
    async close() {
      services.readiness.delete('mqtt-subscriber');
      await client.endAsync();
      await acceptor.close();
    },
  };
}
