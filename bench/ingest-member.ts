/**
 * A pipeline process for `npm run bench:ingest -- --broker external`: the harmonize worker and,
 * when MQTT_URL is set, the subscriber on that broker (a member of MQTT_SHARE_GROUP), as
 * `npm run worker` runs them. It measures per stored message the time from publish (the
 * message's sample time) to stored, and counts the harmonize jobs it ran (messages per job).
 * The parent asks for the figures over IPC.
 */
import { loadConfig } from '../src/config.ts';
import { startExternalSubscriber } from '../src/transports/mqtt/broker-subscriber.ts';
import { createLogger } from '../src/logger.ts';
import { createServices } from '../src/main/create-services.ts';
import { startHarmonizeWorker } from '../src/pipeline/worker.ts';
import { pipelineContext } from '../src/main/contexts.ts';
import { countStored } from './stored-counter.ts';

const config = loadConfig(process.env);
const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), config.REDIS_URL!);
const stored = countStored(services.store.dataPoints);
let jobs = 0;
const harmonize = startHarmonizeWorker(pipelineContext(services));
harmonize.worker.on('completed', () => jobs++);
const subscriber = config.MQTT_URL ? await startExternalSubscriber(services, config.MQTT_URL) : undefined;

process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'take') {
    process.send?.({ ...stored.take(), jobs });
    jobs = 0;
  } else if (m.cmd === 'stop') {
    void (async () => {
      await subscriber?.close();
      await harmonize.close();
      process.exit(0);
    })();
  }
});
// Ready once subscribed: a publish before the SUBACK would match no subscription.
if (subscriber) {
  while (!subscriber.client.connected) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300));
}
process.send?.({ ready: true });
