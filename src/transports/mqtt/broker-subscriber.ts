import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import type { Adapter } from '../../adapters/manifest.ts';
import { topicMatcher } from '../../adapters/topics.ts';
import type { Running } from '../../running.ts';
import { createAcceptor, type Arrival } from '../accept.ts';
import { mqttArrival } from './arrival.ts';
import type { TransportDeps } from '../deps.ts';
import { createHeldAcks, type HeldAcks } from './held-acks.ts';
import { createShareMembers, type ShareMembers } from './share-members.ts';
import { subscriberClientId, subscriptionFilters } from './subscriber-identity.ts';

/** How long the subscriber must hear nothing, once it unsubscribed, to call its session drained. */
const QUIET_MS = 500;
/** How often a member tells the others it is still there (its session's expiry moves on). */
const RENEW_MS = 3_600_000;
/** Passed to mqtt.js's handleMessage callback: no PUBACK now, the subscriber sends it itself. */
const HELD = Object.assign(new Error('PUBACK held until the message is queued'), { held: true });

export interface ExternalSubscriber extends Running {
  client: MqttClient;
  clientId: string;
}

/**
 * The subscriber on an external broker (MQTT_URL): MQTT 5, a persistent session (clean start
 * off, MQTT_SESSION_EXPIRY_S), QoS 1 subscriptions to every MQTT adapter's topics, through the
 * share group $share/<MQTT_SHARE_GROUP>/... when one is set, so that every pipeline process
 * subscribes and the broker spreads the stream over them.
 *
 * Batching: up to MQTT_RECEIVE_MAXIMUM publishes are in flight at once. Each goes into the
 * ingest batcher at once, and its PUBACK is sent only when the batch holding it is durably
 * queued (src/transports/mqtt/held-acks.ts), so at full load a job carries PIPELINE_BATCH_SIZE messages,
 * as on the embedded broker. When the queue refuses a batch, no PUBACK is sent and the
 * connection is dropped: the broker sends those messages again on reconnect.
 *
 * Stopping (close): a member of a share group leaves it when another session of the group
 * remains (src/transports/mqtt/share-members.ts): it unsubscribes, takes in what the broker still had
 * queued or in flight for it until it hears nothing more, then disconnects with session expiry
 * 0, so no share stays behind in a session that may never return. The last member, or one
 * without a group, stops reading, acknowledges what it has queued and disconnects keeping its
 * session: the broker queues for it until it is back. Manufacturers' own authentication and
 * topic rights are the external broker's job (its ACLs).
 */
export async function startExternalSubscriber(
  services: TransportDeps,
  mqttUrl: string,
  opts: { clientId?: string } = {},
): Promise<ExternalSubscriber> {
  const { config, logger, clock } = services;
  const group = config.MQTT_SHARE_GROUP;
  const clientId = opts.clientId ?? subscriberClientId(config);
  const acceptor = createAcceptor(services);
  const routes = services.adapters
    .list()
    .filter((a): a is Adapter & { manifest: { transport: { kind: 'mqtt' } } } => a.manifest.transport.kind === 'mqtt')
    .map((adapter) => ({ adapter, matches: topicMatcher(adapter.manifest.transport.topics) }));
  const filters = subscriptionFilters(
    routes.flatMap((r) => r.adapter.manifest.transport.topics),
    group,
  );
  const members: ShareMembers | undefined = group === undefined ? undefined : createShareMembers(services.redis, config.QUEUE_PREFIX, group, clientId);
  const sessionEndsAt = () => clock.now().getTime() + config.MQTT_SESSION_EXPIRY_S * 1000;

  /** A publish on one of our topics, for accept(); null when it is not ours. */
  const arrival = (topic: string, payload: Buffer | string, refused: Arrival['refused']): Arrival | null => {
    // At most one route matches: the registry refuses overlapping filters (src/adapters/conflicts.ts).
    const route = routes.find((r) => r.matches(topic));
    if (!route) return null; // not ours (a broader subscription of someone else)
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    return mqttArrival(config, route.adapter.manifest.id, topic, bytes, refused);
  };

  let acks: HeldAcks | undefined;
  /** Set once close() stops taking messages in (the last member, or after a drain timed out). */
  let closing = false;
  let lastArrival = 0;
  /** Accepts not yet settled, whatever the connection: close() waits for them. */
  const accepting = new Set<Promise<unknown>>();

  const client = mqtt.connect(mqttUrl, {
    clientId,
    protocolVersion: 5,
    clean: false,
    properties: { sessionExpiryInterval: config.MQTT_SESSION_EXPIRY_S, receiveMaximum: config.MQTT_RECEIVE_MAXIMUM },
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
  });

  /** A QoS 1 publish: queued with the next batch, acknowledged once that batch is. */
  function take(packet: IPublishPacket): void {
    lastArrival = Date.now();
    const line = acks;
    // Stopping: not acknowledged, so the broker keeps it for this session's next connection.
    if (closing || !line || packet.messageId === undefined) return;
    const ticket = line.hold(packet.messageId);
    const a = arrival(packet.topic, packet.payload, { consequence: 'reconnecting without PUBACK' });
    // Not ours: nothing to keep. Too large: acknowledged and dropped (accept() counts it).
    if (!a) return line.release(ticket);
    const p = acceptor.accept(a).then(
      () => line.release(ticket),
      () => {
        // The broker sends the unacknowledged messages of the session again on reconnect.
        line.abandon();
        if (acks === line) client.stream?.destroy();
      },
    );
    accepting.add(p);
    void p.finally(() => accepting.delete(p));
  }

  // mqtt.js hands publishes over one at a time and sends the PUBACK when this calls back
  // without an error; calling back with HELD lets it read the next one at once.
  client.handleMessage = (packet, callback) => {
    if (packet.cmd !== 'publish') return callback();
    if (packet.qos === 0) {
      // A manufacturer publishing at QoS 0 asked for at most once: queued as well, and if the
      // queue refuses it there is no acknowledgement to withhold, so it is counted and logged as lost.
      const a = arrival(packet.topic, packet.payload, { consequence: 'it is lost (publish at QoS 1 to have it re-sent)', lost: true });
      if (a && !closing) acceptor.accept(a).catch(() => {});
      return callback();
    }
    take(packet);
    callback(HELD);
  };

  client.on('error', (err) => logger.warn({ err: err.message }, 'external MQTT broker error'));
  client.on('close', () => {
    acks?.abandon();
    acks = undefined;
  });
  client.on('connect', (connack) => {
    const stream = client.stream;
    acks = createHeldAcks((bytes) => stream.write(bytes));
    logger.info({ sessionPresent: connack.sessionPresent, clientId, shareGroup: group ?? null }, 'connected to the external MQTT broker');
    if (closing) return;
    // Subscribing again on a resumed session is harmless and repairs a lost subscription; the
    // other form goes, so a session kept from before a change of MQTT_SHARE_GROUP does not
    // deliver every message twice.
    client.subscribe(filters.subscribe, { qos: 1 }, (err) => {
      if (err) return logger.error({ err: err.message }, 'subscribing on the external MQTT broker failed');
      logger.info({ filters: filters.subscribe }, 'subscribed on the external MQTT broker');
      members?.joined(sessionEndsAt()).catch((e: unknown) => logger.warn({ err: (e as Error).message }, 'could not record the share group member in Redis'));
    });
    if (filters.unsubscribe.length > 0) client.unsubscribe(filters.unsubscribe, () => {});
  });
  const renew = setInterval(() => {
    if (client.connected) members?.joined(sessionEndsAt()).catch(() => {});
  }, RENEW_MS);
  renew.unref();

  services.readiness.set('mqtt-subscriber', async () => {
    if (!client.connected) throw new Error('not connected to the external MQTT broker');
  });

  /** Resolves true once nothing is waiting and nothing arrived for QUIET_MS; false at the deadline. */
  async function drained(deadline: number): Promise<boolean> {
    for (;;) {
      const quiet = Date.now() - lastArrival >= QUIET_MS;
      if (quiet && accepting.size === 0 && (acks?.waiting ?? 0) === 0) return true;
      if (Date.now() > deadline || !client.connected) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops taking messages, lets what was taken be queued and acknowledged. */
  async function settle(deadline: number): Promise<void> {
    closing = true;
    await Promise.race([Promise.allSettled([...accepting]), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())))]);
  }

  const end = (properties?: { sessionExpiryInterval: number }) =>
    new Promise<void>((resolve) => client.end(false, properties ? { properties } : {}, () => resolve()));

  async function leaveOrKeep(): Promise<void> {
    // Half the shutdown budget: the rest is for the workers and the last batch.
    const deadline = Date.now() + config.SHUTDOWN_TIMEOUT_MS / 2;
    let leave = false;
    if (members && client.connected) {
      leave = await members.mayLeave(clock.now().getTime()).catch((err: unknown) => {
        logger.warn({ err: (err as Error).message }, 'could not ask Redis for the other share group members; keeping the session');
        return false;
      });
    }
    if (leave) {
      try {
        await Promise.race([
          client.unsubscribeAsync(filters.subscribe),
          new Promise((_, reject) => setTimeout(() => reject(new Error('no UNSUBACK in time')), Math.max(0, deadline - Date.now())).unref()),
        ]);
        lastArrival = Date.now();
        if (await drained(deadline)) {
          closing = true;
          await end({ sessionExpiryInterval: 0 });
          logger.info({ clientId, shareGroup: group }, 'left the MQTT share group: unsubscribed, drained, session ended');
          return;
        }
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'leaving the MQTT share group failed');
      }
      // Not drained in time: what the broker still holds for this session stays there.
      logger.warn({ clientId, shareGroup: group }, 'the MQTT session did not drain in time; it is kept with what the broker still queues for it (a process with the same MQTT_CLIENT_ID takes it back)');
      await members?.joined(sessionEndsAt()).catch(() => {});
    }
    await settle(deadline);
    await end();
    logger.info({ clientId, shareGroup: group ?? null }, 'disconnected from the external MQTT broker; the session is kept, and the broker queues for it until it is back');
  }

  return {
    name: 'mqtt-subscriber',
    client,
    clientId,
    async close() {
      services.readiness.delete('mqtt-subscriber');
      clearInterval(renew);
      await leaveOrKeep();
      await acceptor.close();
    },
  };
}
