import type { MqttClient } from 'mqtt';
import type { Services } from '../../services.ts';
import { connectAsVirtual } from '../../../simulator/src/virtual-mqtt.ts';

export class BrokerUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BrokerUnavailableError';
  }
}

/**
 * Publishes the sandbox's raw events over MQTT as the virtual manufacturer, like the simulator:
 * the event then takes the real path (broker ACL, ingest, harmonize, store, push fan-out). The
 * client connects on the first call (the broker of this process may start after the API) and
 * stays connected. A publish waits for the broker's PUBACK (QoS 1); a broker that does not
 * connect or confirm within `timeoutMs` is a BrokerUnavailableError (nothing is sent while the
 * client is not connected; a publish that was not confirmed in time may still arrive).
 */
export function createSandboxPublisher(services: Pick<Services, 'config' | 'adapters' | 'logger'>, brokerUrl: () => string, timeoutMs = 5000) {
  let client: MqttClient | undefined;

  function connected(): Promise<MqttClient> {
    if (!client) {
      client = connectAsVirtual(services, brokerUrl(), 'sandbox', timeoutMs);
      client.on('error', (err) => services.logger.warn({ err: err.message }, 'sandbox MQTT client error'));
    }
    const c = client;
    if (c.connected) return Promise.resolve(c);
    return within(new Promise<MqttClient>((resolve) => c.once('connect', () => resolve(c))), 'connect to');
  }

  function within<T>(p: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BrokerUnavailableError(`could not ${what} the MQTT broker within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([p, late]).finally(() => clearTimeout(timer));
  }

  return {
    async publish(topic: string, payload: string): Promise<void> {
      const c = await connected();
      await within(
        c.publishAsync(topic, payload, { qos: 1 }).catch((err: Error) => {
          throw new BrokerUnavailableError(`the MQTT broker refused the publish: ${err.message}`);
        }),
        'publish to',
      );
    },
    async close(): Promise<void> {
      await client?.endAsync(true);
    },
  };
}
