/**
 * The load generator of `npm run bench:ingest`, in its own process: CONNECTIONS MQTT clients
 * logged in as the virtual manufacturer publish the full telemetry message at QoS 1, at the
 * rate the parent sets (messages per second), spread over 10 ms ticks. Reports how many
 * publishes were acknowledged (PUBACK), and its own CPU time.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { cpuCounter } from './cpu-counter.ts';
import { benchMessage, benchVin } from './ingest-message.ts';

const { BROKER_URL, MQTT_USERNAME, MQTT_PASSWORD } = process.env;
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const clients: MqttClient[] = await Promise.all(
  Array.from({ length: CONNECTIONS }, () => mqtt.connectAsync(BROKER_URL!, { username: MQTT_USERNAME!, password: MQTT_PASSWORD!, reconnectPeriod: 0 })),
);

const cpu = cpuCounter();
let rate = 0;
let sent = 0;
let acked = 0;
let seq = 0;
const started = Date.now();
let due = 0;
setInterval(() => {
  // Publish what is due since the start of this rate, so timer jitter does not lower the rate.
  due += rate / 100;
  while (due >= 1) {
    due--;
    const i = seq++;
    const client = clients[i % clients.length]!;
    const vin = benchVin(i);
    client.publish(`virtual/v1/${vin}/telemetry`, benchMessage(vin, Date.now()), { qos: 1 }, (err) => {
      if (!err) acked++;
    });
    sent++;
  }
}, 10);

process.on('message', (m: { cmd: string; rate?: number }) => {
  if (m.cmd === 'rate') {
    rate = m.rate ?? 0;
    due = 0;
  } else if (m.cmd === 'take') {
    process.send?.({ sent, acked, seconds: (Date.now() - started) / 1000, cpuMs: cpu.take() });
    sent = 0;
    acked = 0;
  } else if (m.cmd === 'stop') {
    for (const c of clients) c.end(true);
    process.exit(0);
  }
});
process.send?.({ ready: true });
