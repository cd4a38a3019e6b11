import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedBroker } from '../../src/transports/mqtt/embedded-broker.ts';
import { buildServiceApp } from '../../src/main/http-app.ts';
import { systemClock } from '../../src/clock.ts';
import { startServiceSampler } from '../../src/main/sampler.ts';
import { startActivationWorkers } from '../../src/management/start.ts';
import { fleetFreshness } from '../../src/main/fleet-freshness.ts';
import { startMappingReloads } from '../../src/main/mapping-reloads.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import { startPushWorkers } from '../../src/push/start.ts';
import { freePort } from '../helpers/free-port.ts';
import type { Running } from '../../src/running.ts';
import { defaultPaths } from '../../src/paths.ts';
import type { LiveApp } from '../consent/harness.ts';
import { createTestServices } from '../helpers/services.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

/** The deliberate defect: Borealis collisions get their severity as a string (SCHEMA_VIOLATION). */
export const GOOD_SEVERITY = '"value": $i.impact.level';
export const BAD_SEVERITY = '"value": $string($i.impact.level)';

export interface ConsoleService {
  t: LiveApp;
  /** The mapping file the pipeline runs (a copy of mappings/borealis/incident.jsonata). */
  incidentMapping: string;
  close(): Promise<void>;
}

/**
 * 08:00 UTC two days ago: the simulated fleet's readings fall within the console's "7 days"
 * range and before its "24 h" one, whatever day the suite runs (a fixed date fell out of the
 * 7 days a week after it was written).
 */
function simulatedMorning(): string {
  const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  return `${day}T08:00:00.000Z`;
}

/**
 * The deployed service with the virtual fleet moving (simulated time x60 from 08:00, when most
 * vehicles drive), the console's sampler writing every 500 ms, listening for mapping reloads,
 * and a copy of the adapters and mappings folders whose Borealis incident mapping has a defect
 * to be fixed in the playground.
 */
export async function startConsoleService(): Promise<ConsoleService> {
  const project = mkdtempSync(join(tmpdir(), 'cvd-console-project-'));
  cpSync(defaultPaths().adapters, join(project, 'adapters'), { recursive: true });
  cpSync(defaultPaths().mappings, join(project, 'mappings'), { recursive: true });
  const incidentMapping = join(project, 'mappings', 'borealis', 'incident.jsonata');
  const source = readFileSync(incidentMapping, 'utf8');
  if (!source.includes(GOOD_SEVERITY)) throw new Error('the incident mapping changed: update the console test');
  writeFileSync(incidentMapping, source.replace(GOOD_SEVERITY, BAD_SEVERITY));
  const paths = { ...defaultPaths(), adapters: join(project, 'adapters'), mappings: join(project, 'mappings') };

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const ts = await createTestServices({
    clock: systemClock,
    paths,
    env: {
      PUBLIC_URL: origin,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUSH_ALLOW_PRIVATE_TARGETS: 'true',
      PUSH_WATCH_CACHE_MS: '0',
      SIM_CLOCK: `scaled:60@${simulatedMorning()}`,
      SIM_TICK_MS: '200',
      SIM_MAX_CATCHUP_MINUTES: '2',
      PIPELINE_BATCH_MAX_WAIT_MS: '2',
      MQTT_PORT: '0',
    },
  });
  const app = await buildServiceApp(ts.services, { wing: ts.wing });
  await app.listen({ port, host: '127.0.0.1' });
  const t: LiveApp = {
    ...ts,
    app,
    origin,
    async cleanup() {
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
      await ts.cleanup();
    },
  };
  const broker = await startEmbeddedBroker(ts.services, { port: 0 });
  const reloads = startMappingReloads(ts.services);
  await reloads.listening;
  const running: Running[] = [
    reloads,
    broker,
    startHarmonizeWorker(pipelineContext(ts.services), {}),
    startServiceSampler(ts.services, { gauges: ts.services.gauges, freshness: () => fleetFreshness(ts.services), intervalMs: 500 }),
    ...(await startActivationWorkers(ts.services)),
    ...(await startPushWorkers(ts.services)),
  ];
  running.push(...(await ts.wing!.simulatorRole!(ts.services, broker.url)));
  return {
    t,
    incidentMapping,
    async close() {
      for (const r of [...running].reverse()) await r.close();
      await t.cleanup();
      rmSync(project, { recursive: true, force: true });
    },
  };
}
