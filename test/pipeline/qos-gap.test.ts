import mqtt from 'mqtt';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { mqttCredentials } from '../../src/adapters/secrets.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import { fixture, startHarness, waitFor, type Harness } from './harness.ts';

/**
 * A PUBACK hands the message over, so the enqueue must come first: aedes acknowledges a QoS 1 publish before its `published`
 * hook, so the broker queues the message inside `authorizePublish`. When the queue is down the
 * publish gets no PUBACK and the connection closes; the client keeps the message and re-sends
 * it on reconnect (clean: false), and it is stored exactly once.
 */
describe('no QoS 1 message lost between PUBACK and the queue', () => {
  let h: Harness | undefined;
  let redis: PrivateRedis | undefined;
  afterEach(async () => {
    await h?.stop();
    await redis?.stop();
  });

  it('refuses the publish without PUBACK while Redis is down, and stores it once after Redis is back', async () => {
    redis = await startPrivateRedis();
    const port = redis.port;
    h = await startHarness({ env: { REDIS_URL: redis.url } });
    const vin = 'V1RTUALV1N0000002';
    const adapter = h.services.adapters.get('virtual')!;

    await redis.stop();
    const client = mqtt.connect(h.brokerUrl!, {
      ...mqttCredentials(h.services.config, adapter),
      clientId: `qos-gap-${randomUUID().slice(0, 8)}`,
      clean: false,
      reconnectPeriod: 300,
    });
    try {
      await new Promise<void>((resolve) => client.once('connect', () => resolve()));
      let acked = false;
      const closes: number[] = [];
      client.on('close', () => closes.push(Date.now()));
      const published = client.publishAsync(`virtual/v1/${vin}/telemetry`, fixture('virtual', 'virtual.telemetry.diesel.json'), { qos: 1 }).then(() => {
        acked = true;
      });
      await waitFor(() => closes.length > 0, 5_000, 'the broker to close the connection');
      expect(acked).toBe(false);
      await new Promise((r) => setTimeout(r, 700));
      expect(acked).toBe(false);
      expect(await h.services.store.dataPoints.count()).toBe(0);

      redis = await startPrivateRedis({ port });
      // Each step waits a bounded time and names itself, and a failure shows the service's last
      // log lines: this test once ran into the suite's timeout on a loaded machine, silently.
      try {
        // The client re-sends on its next reconnect; the producer reconnects within 2 s.
        await waitFor(() => acked, 20_000, `the PUBACK once Redis is back (${closes.length} refused connections before)`);
        // Workers reconnect to Redis with backoff (up to 2 s): allow for it.
        await waitFor(async () => (await h!.services.store.dataPoints.count()) === 22, 40_000, '22 stored points');
      } catch (err) {
        throw new Error(`${(err as Error).message}; last log lines:\n${h.logs.slice(-15).join('\n')}`);
      }
      await published;
      await new Promise((r) => setTimeout(r, 500));
      expect(await h.services.store.dataPoints.count()).toBe(22);
      expect(await h.services.store.quarantine.count()).toBe(0);
      // The refusals are reported as what they were, not as oversized packets.
      expect(h.logs.some((l) => l.includes('packet over the size limit'))).toBe(false);
    } finally {
      client.end(true);
    }
  }, 90_000);
});
