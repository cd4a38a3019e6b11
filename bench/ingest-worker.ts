/**
 * A harmonize worker process for `npm run bench:ingest` (as `npm run worker` runs it), which
 * also measures: after each store write it records, per message, the time from publish (the
 * message's sample time) to stored. The parent asks for the figures over IPC.
 */
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startHarmonizeWorker } from '../src/pipeline/worker.ts';
import { createServices } from '../src/main/create-services.ts';
import { pipelineContext } from '../src/main/contexts.ts';

const config = loadConfig(process.env);
const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), config.REDIS_URL!);
let latencies: number[] = [];
let messages = 0;
let items = 0;
const insertMany = services.store.dataPoints.insertMany.bind(services.store.dataPoints);
services.store.dataPoints.insertMany = async (points) => {
  const fresh = await insertMany(points);
  const now = Date.now();
  items += fresh.length;
  for (const p of fresh) {
    if (p.item === 'mileage') {
      messages++;
      latencies.push(now - p.timestampMs);
    }
  }
  return fresh;
};
const worker = startHarmonizeWorker(pipelineContext(services));
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'take') {
    process.send?.({ messages, items, latencies });
    latencies = [];
    messages = 0;
    items = 0;
  } else if (m.cmd === 'stop') {
    void worker.close().then(() => process.exit(0));
  }
});
process.send?.({ ready: true });
