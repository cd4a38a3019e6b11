import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { createServer, type AddressInfo } from 'node:net';

export interface Received {
  topic: string;
  body: Record<string, unknown> & { messageId: string };
}

export interface PrivateBroker {
  url: string;
  /** Everything a subscriber (QoS 1 on virtual/v1/#) received, in order. */
  received: Received[];
  /** Usernames/passwords publishers logged in with. */
  logins: { username: string | undefined; password: string | undefined }[];
  /** While true, PUBACKs are withheld (authorizePublish waits); `release()` lets them go. */
  hold: boolean;
  held(): number;
  release(): void;
  close(): Promise<void>;
}

/**
 * A private aedes broker on a free port (port 0) with one real MQTT subscriber client, so a
 * test sees exactly what the simulator published, over sockets, without touching any shared
 * broker.
 */
export async function startPrivateBroker(): Promise<PrivateBroker> {
  const pending: (() => void)[] = [];
  const state: PrivateBroker = {
    url: '',
    received: [],
    logins: [],
    hold: false,
    held: () => pending.length,
    release: () => {
      state.hold = false;
      for (const go of pending.splice(0)) go();
    },
    close: async () => {},
  };
  const aedes = await Aedes.createBroker({
    authenticate(_client, username, password, done) {
      state.logins.push({ username, password: password?.toString() });
      done(null, true);
    },
    authorizePublish(_client, _packet, done) {
      if (state.hold) pending.push(() => done(null));
      else done(null);
    },
  });
  const server = createServer(aedes.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const subscriber: MqttClient = await mqtt.connectAsync(state.url, { clientId: 'test-subscriber', reconnectPeriod: 0 });
  subscriber.on('message', (topic, payload) => state.received.push({ topic, body: JSON.parse(payload.toString()) }));
  await subscriber.subscribeAsync('virtual/v1/#', { qos: 1 });
  state.logins.length = 0;
  state.close = async () => {
    state.release();
    await subscriber.endAsync(true);
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

/** Polls until `check` is truthy or the time is up. */
export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
