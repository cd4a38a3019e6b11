import { hostname } from 'node:os';
import type { Config } from '../../config.ts';

/**
 * Who the subscriber on an external broker is: its client id and what it subscribes to.
 *
 * The broker keeps a persistent session, with its subscriptions and queued messages, per client
 * id, and a second connection with the same id takes the session from the first. So in a share
 * group every process needs an id of its own, and the same one after a restart, to get back
 * the messages its session kept: by default the host name and the port the process listens on,
 * which no other process of that host can hold at the same time.
 */
export function subscriberClientId(config: Pick<Config, 'MQTT_CLIENT_ID' | 'MQTT_SHARE_GROUP' | 'QUEUE_PREFIX' | 'ROLES' | 'PORT' | 'PROBE_PORT'>, host = hostname(), pid = process.pid): string {
  if (config.MQTT_CLIENT_ID !== undefined) return config.MQTT_CLIENT_ID;
  // Without a share group exactly one process subscribes; its id is what it always was.
  if (config.MQTT_SHARE_GROUP === undefined) return `${config.QUEUE_PREFIX}-ingest`;
  const port = config.ROLES.includes('api') && config.PORT > 0 ? config.PORT : config.PROBE_PORT;
  return `${config.QUEUE_PREFIX}-${host}-${port > 0 ? port : `pid${pid}`}`;
}

/** Whether this process subscribes (MQTT_SUBSCRIBER; `auto`: every process of a share group). */
export function subscribes(config: Pick<Config, 'MQTT_URL' | 'MQTT_SUBSCRIBER' | 'MQTT_SHARE_GROUP'>): boolean {
  if (config.MQTT_URL === undefined) return false;
  return config.MQTT_SUBSCRIBER === 'on' || (config.MQTT_SUBSCRIBER === 'auto' && config.MQTT_SHARE_GROUP !== undefined);
}

/**
 * The filters to subscribe to (through the share group when there is one) and the ones to drop:
 * the other form, which a session kept from before a change of MQTT_SHARE_GROUP may still hold
 * (it would deliver every message a second time).
 */
export function subscriptionFilters(topics: readonly string[], group: string | undefined, previousGroup?: string): { subscribe: string[]; unsubscribe: string[] } {
  const shared = (g: string) => topics.map((t) => `$share/${g}/${t}`);
  if (group === undefined) return { subscribe: [...topics], unsubscribe: previousGroup === undefined ? [] : shared(previousGroup) };
  return { subscribe: shared(group), unsubscribe: [...topics] };
}
