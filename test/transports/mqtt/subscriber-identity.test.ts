import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { subscriberClientId, subscribes, subscriptionFilters } from '../../../src/transports/mqtt/subscriber-identity.ts';

const config = (env: Record<string, string>) => loadConfig({ MQTT_URL: 'mqtt://broker:1883', ...env });

describe('who the external-broker subscriber is', () => {
  it('keeps the one subscriber\'s id without a share group, and gives each process of a group one of its own, stable across restarts', () => {
    expect(subscriberClientId(config({}), 'host-a', 11)).toBe('cvd-ingest');
    expect(subscriberClientId(config({ MQTT_CLIENT_ID: 'mine' }), 'host-a', 11)).toBe('mine');
    // A worker: its probe port; the same after a restart (another pid), another on another port.
    const worker = config({ MQTT_SHARE_GROUP: 'g', ROLES: 'pipeline', PROBE_PORT: '9091' });
    expect(subscriberClientId(worker, 'host-a', 11)).toBe('cvd-host-a-9091');
    expect(subscriberClientId(worker, 'host-a', 12)).toBe('cvd-host-a-9091');
    expect(subscriberClientId(config({ MQTT_SHARE_GROUP: 'g', ROLES: 'pipeline', PROBE_PORT: '9092' }), 'host-a', 11)).toBe('cvd-host-a-9092');
    // With the api role, the port it serves HTTP on.
    expect(subscriberClientId(config({ MQTT_SHARE_GROUP: 'g', PORT: '8081', QUEUE_PREFIX: 'x' }), 'host-b', 11)).toBe('x-host-b-8081');
    // Listening on nothing: the process id (unique, not stable).
    expect(subscriberClientId(config({ MQTT_SHARE_GROUP: 'g', ROLES: 'pipeline' }), 'host-a', 11)).toBe('cvd-host-a-pid11');
  });

  it('subscribes in every process of a share group, in the one told without', () => {
    expect(subscribes(config({}))).toBe(true);
    expect(subscribes(config({ MQTT_SUBSCRIBER: 'off' }))).toBe(false);
    expect(subscribes(config({ MQTT_SUBSCRIBER: 'auto' }))).toBe(false);
    expect(subscribes(config({ MQTT_SUBSCRIBER: 'auto', MQTT_SHARE_GROUP: 'g' }))).toBe(true);
    expect(subscribes(loadConfig({ MQTT_SHARE_GROUP: 'g' }))).toBe(false);
  });

  it('subscribes through the group and drops the plain filters a kept session may hold', () => {
    expect(subscriptionFilters(['a/+/t', 'b/#'], 'g')).toEqual({ subscribe: ['$share/g/a/+/t', '$share/g/b/#'], unsubscribe: ['a/+/t', 'b/#'] });
    expect(subscriptionFilters(['a/+/t'], undefined)).toEqual({ subscribe: ['a/+/t'], unsubscribe: [] });
  });

  it('refuses a group name with a topic separator or wildcard, and defaults Receive Maximum to two batches', () => {
    for (const bad of ['a/b', 'a+', '#']) expect(() => config({ MQTT_SHARE_GROUP: bad })).toThrow(/MQTT_SHARE_GROUP/);
    expect(config({}).MQTT_RECEIVE_MAXIMUM).toBe(400);
    expect(config({ PIPELINE_BATCH_SIZE: '10000' }).MQTT_RECEIVE_MAXIMUM).toBe(20000);
    expect(config({ MQTT_RECEIVE_MAXIMUM: '100' }).MQTT_RECEIVE_MAXIMUM).toBe(100);
  });
});
