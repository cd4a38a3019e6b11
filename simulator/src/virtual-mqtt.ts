import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { mqttCredentials } from '../../src/adapters/secrets.ts';
import type { WingContext } from '../../src/http/wing-contract.ts';
import { withoutCredentials } from '../../src/transports/mqtt/broker-url.ts';

/**
 * An MQTT client logged in as the virtual manufacturer (its manifest's user and secret), as the
 * simulator and the sandbox publish. mqtt.js lets credentials in the URL (MQTT_URL carries the
 * service's own `ingest` user) override the ones it is given, so the URL's are dropped.
 */
export function connectAsVirtual(services: Pick<WingContext, 'config' | 'adapters'>, mqttUrl: string, name: string, connectTimeoutMs = 10_000): MqttClient {
  const adapter = services.adapters.get('virtual');
  const credentials = adapter ? mqttCredentials(services.config, adapter) : undefined;
  return mqtt.connect(credentials ? withoutCredentials(mqttUrl) : mqttUrl, {
    clientId: `virtual-${name}-${randomUUID().slice(0, 8)}`,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: connectTimeoutMs,
    ...credentials,
  });
}
