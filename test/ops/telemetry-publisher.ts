import mqtt, { type MqttClient } from 'mqtt';

/** Data points one message of {@link telemetryMessage} becomes (speed, heading, position, mileage, engine status). */
export const POINTS_PER_MESSAGE = 5;

const BASE_MS = Date.parse('2026-11-25T00:00:00.000Z');

/**
 * Message `i`: a small virtual telemetry message (about 290 bytes) of one of 1000 VINs, with a
 * sample time of its own, so every message is its own five data points (the store's key is
 * VIN, item and time) and a count of points tells how many distinct messages were stored.
 */
export function telemetryMessage(i: number): { topic: string; payload: string } {
  const vin = `V1RTUALV1N${String(i % 1000).padStart(7, '0')}`;
  const sampledAt = new Date(BASE_MS + i * 1000).toISOString();
  const payload = JSON.stringify({
    schema: 'virtual.telemetry/1',
    messageId: `${vin}:${sampledAt}`,
    vin,
    sampledAt,
    powertrain: 'ELECTRIC',
    signals: { motion: { speedKmh: i % 130, headingDeg: i % 360 }, position: { lat: 52.5, lon: 13.4 }, odometerKm: 1000 + i },
  });
  return { topic: `virtual/v1/${vin}/telemetry`, payload };
}

export interface TelemetryPublisher {
  /**
   * Publishes messages `from` .. `from + count - 1` at QoS 1, about `ratePerS` a second with at
   * most `inFlight` awaiting their PUBACK; resolves with how many were acknowledged. `onSent`
   * hears the running count (to act in the middle of it).
   */
  publish(from: number, count: number, opts?: { ratePerS?: number; inFlight?: number; onAcked?: (acked: number) => void | Promise<void> }): Promise<number>;
  close(): Promise<void>;
}

/** The virtual manufacturer publishing through the broker with its own credentials. */
export async function startTelemetryPublisher(url: string, password: string): Promise<TelemetryPublisher> {
  const client: MqttClient = await mqtt.connectAsync(url, { username: 'virtual', password, reconnectPeriod: 500, clean: true });
  return {
    async publish(from, count, opts = {}) {
      const rate = opts.ratePerS ?? 1000;
      const window = opts.inFlight ?? 200;
      const started = Date.now();
      let acked = 0;
      let inFlight = 0;
      let waiting: (() => void) | undefined;
      const hooks: Promise<void>[] = [];
      for (let k = 0; k < count; k++) {
        // Paced: message k goes no earlier than k / rate seconds after the start.
        const wait = started + (k * 1000) / rate - Date.now();
        if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
        while (inFlight >= window) await new Promise<void>((r) => (waiting = r));
        const { topic, payload } = telemetryMessage(from + k);
        inFlight++;
        client.publish(topic, payload, { qos: 1 }, (err) => {
          inFlight--;
          if (!err) {
            acked++;
            const hook = opts.onAcked?.(acked);
            if (hook) hooks.push(hook);
          }
          waiting?.();
          waiting = undefined;
        });
      }
      while (inFlight > 0) await new Promise<void>((r) => (waiting = r));
      await Promise.all(hooks);
      return acked;
    },
    close: () => client.endAsync(),
  };
}
