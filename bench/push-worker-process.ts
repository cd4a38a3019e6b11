/**
 * One push role process for `npm run bench:push`: the delivery workers on the bench's store,
 * Redis and queue prefix (all from the environment), as `ROLES=push` would run them. Reports
 * ready, and its CPU time when asked ('cpu') and when told to stop ('close').
 */
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startPushWorkers } from '../src/push/start.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';

const config = loadConfig(process.env);
const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), config.REDIS_URL!);
const running = await startPushWorkers(services);
const cpuAtStart = process.cpuUsage();
process.send?.({ ready: true });
const cpuMs = () => {
  const cpu = process.cpuUsage(cpuAtStart);
  return (cpu.user + cpu.system) / 1000;
};
process.on('message', async (m) => {
  if (m === 'cpu') process.send?.({ cpuMs: cpuMs() });
  if (m !== 'close') return;
  const used = cpuMs();
  for (const r of running.reverse()) await r.close();
  await closeServices(services);
  process.send?.({ cpuMs: used }, () => process.exit(0));
});
