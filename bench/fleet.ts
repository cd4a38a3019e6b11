/**
 * `npm run bench:fleet`: 10,000 generated virtual vehicles (plus the thirteen) publishing to a
 * private Mosquitto on a free port, in its own process so the resident memory printed is the
 * simulator's; the broker's own counter ($SYS, every second) counts what arrived. Prints, per
 * performance.md, the baseline measured right before by the same script: the same client and
 * in-flight window publishing one pre-serialized real telemetry message over and over. Settings come from the environment (SIM_FLEET_SIZE, SIM_FLEET_RATE, SIM_MAX_INFLIGHT,
 * SIM_TICK_MS) with bench defaults; BENCH_SECONDS sets the measured run (default 30).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { loadAdapterRegistry } from '../src/adapters/registry.ts';
import { loadCatalog } from '../src/catalog/load.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { freePort } from '../src/main/free-port.ts';
import { defaultPaths } from '../src/paths.ts';
import { BoundedPublisher } from '../simulator/src/bounded-publisher.ts';
import { sample } from '../simulator/src/sample.ts';
import { loadScenarios } from '../simulator/src/scenario-load.ts';
import { startSimulator } from '../simulator/src/start.ts';
import { loadSimSettings } from '../simulator/src/settings.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const env = {
  SIM_FLEET_SIZE: '10000',
  SIM_FLEET_RATE: '0',
  SIM_MAX_INFLIGHT: '500',
  SIM_TICK_MS: '1000',
  SIM_MAX_CATCHUP_MINUTES: '5',
  // 120 simulated minutes per wall minute... per second: far more than the fleet can publish,
  // so the run measures the ceiling (older minutes are skipped, as designed).
  SIM_CLOCK: 'scaled:120@2026-11-25T06:00:00Z',
  LOG_LEVEL: 'warn',
  SECRET_KEY: 'bench-fleet-secret-key-0123456789abcdef',
  ...process.env,
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cvd-bench-mosquitto-'));
  writeFileSync(join(dir, 'mosquitto.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nsys_interval 1\n`);
  const broker = spawn('mosquitto', ['-c', join(dir, 'mosquitto.conf')], { stdio: 'ignore' });
  const url = `mqtt://127.0.0.1:${port}`;
  try {
    await new Promise((r) => setTimeout(r, 300));
    // The broker counts the PUBLISH packets it received and reports every second.
    let received = 0;
    const counter = await mqtt.connectAsync(url, { clientId: 'bench-counter', reconnectPeriod: 0 });
    counter.on('message', (_t, payload) => (received = Number(payload.toString())));
    await counter.subscribeAsync('$SYS/broker/publish/messages/received', { qos: 0 });
    const tick = () => new Promise((r) => setTimeout(r, 1100));

    const config = loadConfig(env);
    const sim = loadSimSettings(env);
    const rssBefore = process.memoryUsage().rss;

    // Baseline: the same client and window, one pre-serialized real telemetry message, for 5 s.
    const vehicles = loadScenarios(defaultPaths().scenarios).map((s) => s.vehicle);
    const message = JSON.stringify(sample(vehicles[8]!, Date.parse('2026-11-25T08:00:00Z')));
    const raw = await mqtt.connectAsync(url, { clientId: 'bench-baseline', reconnectPeriod: 0 });
    const baseline = new BoundedPublisher(raw, { maxInflight: sim.SIM_MAX_INFLIGHT, ratePerSecond: 0, onError: () => {} });
    const b0 = performance.now();
    await tick();
    const r0 = received;
    while (performance.now() - b0 < 5000) {
      for (let i = 0; i < 500; i++) await baseline.publish('virtual/v1/V1RTUALV1N0000S09/telemetry', message);
    }
    await baseline.drain();
    const baselineRate = (baseline.stats.acked / (performance.now() - b0)) * 1000;
    await raw.endAsync();
    await tick();
    const baselineCounted = received - r0;

    // The fleet.
    const paths = defaultPaths();
    const catalog = await loadCatalog(paths.catalog);
    const adapters = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)));
    const logger = createLogger({ level: config.LOG_LEVEL, pretty: false });
    const t0 = performance.now();
    const running = await startSimulator({ config, logger, clock: systemClock, paths, adapters }, sim, url);
    const buildMs = performance.now() - t0;
    const rssBuilt = process.memoryUsage().rss;
    let rssMax = 0;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage().rss)), 200);
    await new Promise((r) => setTimeout(r, 3000)); // warm-up
    // Measure between two counter updates, so the window matches the broker's counts.
    await new Promise<void>((resolve) => counter.once('message', () => resolve()));
    const m0 = received;
    const w0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    await new Promise<void>((resolve) => counter.once('message', () => resolve()));
    const elapsed = (performance.now() - w0) / 1000;
    const measured = received - m0;
    clearInterval(sampler);
    for (const r of running) await r.close();
    await counter.endAsync();

    const rate = measured / elapsed;
    console.log(
      [
        `fleet: ${sim.SIM_FLEET_SIZE} generated + 13 scenario vehicles, SIM_MAX_INFLIGHT=${sim.SIM_MAX_INFLIGHT}, SIM_FLEET_RATE=${sim.SIM_FLEET_RATE || 'unlimited'}, broker: mosquitto (own process)`,
        `baseline (same client + window, one pre-serialized ${(message.length / 1024).toFixed(2)} KB telemetry message): ${baselineRate.toFixed(0)} msg/s acked (${baselineCounted} counted by the broker)`,
        `fleet publish rate: ${rate.toFixed(0)} msg/s received by the broker over ${elapsed.toFixed(1)} s (${((rate / baselineRate) * 100).toFixed(0)} % of baseline)`,
        `  real time needs ${(sim.SIM_FLEET_SIZE + 13) / 60 | 0} msg/s for this fleet: headroom x${(rate / ((sim.SIM_FLEET_SIZE + 13) / 60)).toFixed(1)}`,
        `vehicles built in ${buildMs.toFixed(0)} ms`,
        `resident memory: ${mb(rssBefore)} before, ${mb(rssBuilt)} with the fleet built, ${mb(rssMax)} peak while publishing (simulator process)`,
      ].join('\n'),
    );
  } finally {
    broker.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
