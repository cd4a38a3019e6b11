import type { Config } from '../../config.ts';
import { messageTypeOf } from '../../adapters/topics.ts';
import type { Arrival } from '../accept.ts';

/**
 * One MQTT publish as an arrival, the same from the embedded broker and the external-broker
 * subscriber: its message type is the topic's last level, it is limited to
 * MQTT_MAX_PAYLOAD_BYTES (a broker takes the bytes before anyone can look), and it joins a
 * batch with other publishes, each acknowledged once its batch is queued.
 */
export function mqttArrival(config: Pick<Config, 'MQTT_MAX_PAYLOAD_BYTES'>, manufacturer: string, topic: string, bytes: Buffer, refused: Arrival['refused']): Arrival {
  return {
    manufacturer,
    transport: 'mqtt',
    messages: [{ messageType: messageTypeOf(topic), topic, bytes }],
    what: refused.lost ? 'an MQTT QoS 0 message' : 'an MQTT message',
    sizeLimit: { bytes: config.MQTT_MAX_PAYLOAD_BYTES, setting: 'MQTT_MAX_PAYLOAD_BYTES' },
    batching: 'batched',
    refused,
  };
}
