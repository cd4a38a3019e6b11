/**
 * A harmonize worker process for `npm run bench:ingest` (as `npm run worker` runs it), which
 * also measures: after each store write it records, per message, the time from publish (the
 * message's sample time) to stored, and its own CPU time. The parent asks for the figures over IPC. With
 * BENCH_HOUSEKEEPING=on it also runs the history clustering job, on its own timer.
 */
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startHistoryClustering } from '../src/pipeline/history-clustering.ts';
import { startHarmonizeWorker } from '../src/pipeline/worker.ts';
import { createServices } from '../src/main/create-services.ts';
import { pipelineContext } from '../src/main/contexts.ts';
import { countStored } from './stored-counter.ts';
import { cpuCounter } from './cpu-counter.ts';

const config = loadConfig(process.env);
const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), config.REDIS_URL!);
const stored = countStored(services.store.dataPoints);
const cpu = cpuCounter();
const worker = startHarmonizeWorker(pipelineContext(services));
const clustering = process.env.BENCH_HOUSEKEEPING === 'on' ? startHistoryClustering(services) : null;
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'take') {
    process.send?.({ ...stored.take(), cpuMs: cpu.take() });
  } else if (m.cmd === 'stop') {
    void Promise.all([worker.close(), clustering?.close()]).then(() => process.exit(0));
  }
});
process.send?.({ ready: true });
