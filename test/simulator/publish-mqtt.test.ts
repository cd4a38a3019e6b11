import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAdapterRegistry } from '../../src/adapters/registry.ts';
import { mqttCredentials } from '../../src/adapters/secrets.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../helpers/free-port.ts';
import type { Running } from '../../src/running.ts';
import { defaultPaths } from '../../src/paths.ts';
import { BoundedPublisher } from '../../simulator/src/bounded-publisher.ts';
import type { EventMessage, TelemetryMessage } from '../../simulator/src/raw-format.ts';
import { startSimulator } from '../../simulator/src/start.ts';
import { loadSimSettings } from '../../simulator/src/settings.ts';
import { startPrivateBroker, until, type PrivateBroker } from './private-broker.ts';
import { customScenario, SCENARIOS_DIR } from './fixtures.ts';

/* The simulator over real MQTT: a private aedes on a free port and a subscriber client. */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const paths = defaultPaths();
const catalog = await loadCatalog(paths.catalog);
const adapters = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)));

async function run(env: Record<string, string>, opts: { extraScenarios?: Record<string, unknown>; onlyExtra?: boolean } = {}) {
  const broker = await startPrivateBroker();
  cleanups.push(() => broker.close());
  const dir = mkdtempSync(join(tmpdir(), 'cvd-sim-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  if (!opts.onlyExtra) for (const f of readdirSync(SCENARIOS_DIR)) copyFileSync(join(SCENARIOS_DIR, f), join(dir, f));
  for (const [name, content] of Object.entries(opts.extraScenarios ?? {})) writeFileSync(join(dir, name), JSON.stringify(content));
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', pretty: false, destination: new Writable({ write: (c, _e, cb) => (logs.push(c.toString()), cb()) }) });
  const config = loadConfig({ SECRET_KEY: 'simulator-test-secret-key-0123456789abcdef', SIM_TICK_MS: '20', ...env });
  const wall = new ManualClock('2031-05-05T12:00:00Z');
  const simEnv = { SIM_TICK_MS: '20', ...env };
  const running: Running[] = await startSimulator({ config, logger, clock: wall, paths: { ...paths, scenarios: dir }, adapters }, loadSimSettings(simEnv), broker.url);
  cleanups.push(async () => {
    for (const r of running) await r.close();
  });
  return { broker, wall, logs, config };
}

const telemetry = (b: PrivateBroker, vin: string) =>
  b.received.filter((r) => r.topic === `virtual/v1/${vin}/telemetry`).map((r) => r.body as unknown as TelemetryMessage);
const events = (b: PrivateBroker, vin: string) =>
  b.received.filter((r) => r.topic === `virtual/v1/${vin}/event`).map((r) => r.body as unknown as EventMessage);
const pastEvents = (b: PrivateBroker, vin: string) =>
  b.received.filter((r) => r.topic === `virtual/v1/${vin}/past-event`).map((r) => r.body as unknown as EventMessage);
const sampledAt = (b: PrivateBroker, iso: string) => b.received.filter((r) => r.body.sampledAt === iso).length;

describe('the simulator over MQTT', () => {
  it('publishes every vehicle every simulated minute of a scaled clock, with the spec behaviour, logged in as the virtual manufacturer', async () => {
    const { broker, wall, config } = await run(
      { SIM_CLOCK: 'scaled:60@2026-11-25T02:29:00Z' },
      { extraScenarios: { 'c000042-van.json': customScenario } },
    );
    const fleet = 14;
    await until(() => sampledAt(broker, '2026-11-25T02:29:00.000Z') === fleet, 'the first round');
    for (let minute = 30; minute <= 34; minute++) {
      wall.advance(1000); // one second of wall time = one simulated minute
      await until(() => sampledAt(broker, `2026-11-25T02:${minute}:00.000Z`) === fleet, `02:${minute}`);
    }
    const one = telemetry(broker, 'V1RTUALV1N0000001');
    const two = telemetry(broker, 'V1RTUALV1N0000002');
    expect(one.map((m) => m.sampledAt.slice(11, 16))).toEqual(['02:29', '02:30', '02:31', '02:32', '02:33', '02:34']);
    for (let i = 1; i < one.length; i++) {
      expect(one[i]!.signals.motion.speedKmh).toBeGreaterThan(0);
      expect(one[i]!.signals.engine.running).toBe(true);
      expect(one[i]!.signals.odometerKm).toBeGreaterThan(one[i - 1]!.signals.odometerKm);
      expect(two[i]!.signals.motion.speedKmh).toBe(0);
      expect(two[i]!.signals.engine.running).toBe(false);
      expect(two[i]!.signals.odometerKm).toBe(two[0]!.signals.odometerKm);
    }
    // The custom scenario's vehicle is published like the thirteen.
    expect(telemetry(broker, 'V1RTUALV1NC000042')).toHaveLength(6);
    // S08's 02:30 crash, once.
    expect(events(broker, 'V1RTUALV1N0000S08').map((e) => [e.occurredAt, e.event])).toEqual([
      ['2026-11-25T02:30:00.000Z', expect.objectContaining({ type: 'CRASH', severity: 1 })],
    ]);
    // Starting at 02:29, each vehicle first reported its last event of each type from before
    // the start, on its past-event topic (stored, not pushed); no live event precedes the start.
    const past = (vin: string) => pastEvents(broker, `V1RTUALV1N${vin}`).map((e) => [e.occurredAt, e.event.type]);
    expect(past('0000S06')).toEqual([
      ['2026-11-24T08:00:00.000Z', 'CRASH'],
      ['2026-11-24T08:02:00.000Z', 'MANUAL_EMERGENCY_CALL'],
    ]);
    expect(pastEvents(broker, 'V1RTUALV1N0000S06')[0]!.event).toMatchObject({ severity: 5, rollover: true });
    expect(past('0000S07')).toEqual([['2026-11-25T01:30:00.000Z', 'CRASH']]);
    expect(past('0000S08')).toEqual([['2026-11-25T02:15:00.000Z', 'CRASH']]);
    expect(past('0000S12')).toEqual([['2026-11-24T20:00:00.000Z', 'TELESERVICE_CALL']]);
    expect(past('0000001')).toEqual([]);
    const start = Date.parse('2026-11-25T02:29:00.000Z');
    for (const r of broker.received.filter((m) => m.topic.endsWith('/event'))) expect(Date.parse(r.body.occurredAt as string)).toBeGreaterThanOrEqual(start);

    // An hour later (60 simulated minutes in one round): the roles swap, S08 crashed every 15 minutes.
    wall.advance(60_000);
    await until(() => sampledAt(broker, '2026-11-25T03:34:00.000Z') === fleet, '03:34');
    const at330 = (vin: string) => telemetry(broker, vin).find((m) => m.sampledAt === '2026-11-25T03:30:00.000Z')!;
    expect(at330('V1RTUALV1N0000001').signals.motion.speedKmh).toBe(0);
    expect(at330('V1RTUALV1N0000002').signals.motion.speedKmh).toBeGreaterThan(0);
    expect(at330('V1RTUALV1N0000003').signals.motion.speedKmh).toBeGreaterThan(0);
    expect(events(broker, 'V1RTUALV1N0000S08').map((e) => e.occurredAt.slice(11, 16))).toEqual(['02:30', '02:45', '03:00', '03:15', '03:30']);
    // Nothing twice; nothing missing.
    const ids = broker.received.map((r) => r.body.messageId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(broker.received.filter((r) => r.topic.endsWith('/telemetry'))).toHaveLength(fleet * 66);
    // Logged in with the virtual manufacturer's credentials (what the embedded broker checks).
    expect(broker.logins).toEqual([mqttCredentials(config, adapters.get('virtual')!)]);
  });

  it('a fixed clock publishes the minute it names, the events at that instant and the last ones before it', async () => {
    const { broker } = await run({ SIM_CLOCK: 'fixed:2026-11-25T08:00:00Z' });
    await until(() => broker.received.filter((r) => r.topic.endsWith('/telemetry')).length === 13, 'one sample per vehicle');
    await until(() => events(broker, 'V1RTUALV1N0000S06').length === 1, 'the S06 crash');
    expect(events(broker, 'V1RTUALV1N0000S06')[0]!.event).toMatchObject({ type: 'CRASH', severity: 5 });
    // The crash at the start instant is live; yesterday's crash and call are past events.
    expect(pastEvents(broker, 'V1RTUALV1N0000S06').map((e) => e.occurredAt)).toEqual(['2026-11-24T08:00:00.000Z', '2026-11-24T08:02:00.000Z']);
    await new Promise((r) => setTimeout(r, 200)); // several more ticks: the clock does not move, nothing more is sent
    expect(broker.received.filter((r) => r.topic.endsWith('/telemetry'))).toHaveLength(13);
  });

  it('publishes at most SIM_MAX_CATCHUP_MINUTES per round and says it skipped the rest', async () => {
    const { broker, wall, logs } = await run(
      { SIM_CLOCK: 'scaled:60@2026-11-25T10:00:00Z', SIM_MAX_CATCHUP_MINUTES: '10' },
      { extraScenarios: { 'c000042-van.json': customScenario }, onlyExtra: true },
    );
    await until(() => telemetry(broker, 'V1RTUALV1NC000042').length === 1, 'the first round');
    wall.advance(100_000); // 100 simulated minutes at once
    await until(() => sampledAt(broker, '2026-11-25T11:40:00.000Z') === 1, '11:40');
    await new Promise((r) => setTimeout(r, 100));
    const times = telemetry(broker, 'V1RTUALV1NC000042').map((m) => m.sampledAt.slice(11, 16));
    expect(times).toEqual(['10:00', '11:31', '11:32', '11:33', '11:34', '11:35', '11:36', '11:37', '11:38', '11:39', '11:40']);
    expect(logs.some((l) => l.includes('skipping old simulated minutes') && l.includes('"skipped":90'))).toBe(true);
  });

  it('a fleet of generated vehicles publishes too, with fleet VINs', async () => {
    const { broker } = await run({ SIM_CLOCK: 'fixed:2026-11-25T02:30:00Z', SIM_FLEET_SIZE: '300', SIM_MAX_INFLIGHT: '16' });
    await until(() => broker.received.filter((r) => r.topic.endsWith('/telemetry')).length === 313, 'the fleet');
    const vins = new Set(broker.received.filter((r) => r.topic.endsWith('/telemetry')).map((r) => r.body.vin as string));
    expect(vins.size).toBe(313);
    expect([...vins].filter((v) => v.startsWith('V1RTUALV1NF'))).toHaveLength(300);
  });
});

describe('an unreachable broker', () => {
  it('does not crash the process, logs the connection errors, and close() still returns promptly', async () => {
    const port = await freePort(); // nothing listens there
    const logs: string[] = [];
    const logger = createLogger({ level: 'debug', pretty: false, destination: new Writable({ write: (c, _e, cb) => (logs.push(c.toString()), cb()) }) });
    const config = loadConfig({ SECRET_KEY: 'simulator-test-secret-key-0123456789abcdef', SIM_TICK_MS: '20', SIM_MAX_INFLIGHT: '8', SIM_CLOCK: 'fixed:2026-11-25T02:30:00Z' });
    const sim = loadSimSettings({ SIM_TICK_MS: '20', SIM_MAX_INFLIGHT: '8', SIM_CLOCK: 'fixed:2026-11-25T02:30:00Z' });
    const running = await startSimulator({ config, logger, clock: new ManualClock(), paths, adapters }, sim, `mqtt://127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    for (const r of running) await r.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(logs.some((l) => l.includes('simulator MQTT client error'))).toBe(true);
  });
});

describe('bounded publishing', () => {
  async function client(url: string) {
    const c = await mqtt.connectAsync(url, { clientId: `bp-${Math.random().toString(36).slice(2)}`, reconnectPeriod: 0 });
    let sent = 0;
    let acked = 0;
    let maxOutstanding = 0;
    c.on('packetsend', (p) => {
      if (p.cmd === 'publish') maxOutstanding = Math.max(maxOutstanding, ++sent - acked);
    });
    c.on('packetreceive', (p) => {
      if (p.cmd === 'puback') acked++;
    });
    cleanups.push(() => c.endAsync(true));
    return { c, outstanding: () => sent - acked, maxOutstanding: () => maxOutstanding, sent: () => sent };
  }

  it('never has more than maxInflight publishes awaiting PUBACK: a slow broker slows the publisher', async () => {
    const broker = await startPrivateBroker();
    cleanups.push(() => broker.close());
    const { c, maxOutstanding, sent } = await client(broker.url);
    broker.hold = true;
    const publisher = new BoundedPublisher(c, { maxInflight: 5, ratePerSecond: 0, onError: () => {} });
    let handed = 0;
    const producer = (async () => {
      for (let i = 0; i < 50; i++) {
        await publisher.publish(`virtual/v1/V1RTUALV1N0000001/telemetry`, JSON.stringify({ messageId: String(i) }));
        handed++;
      }
    })();
    await until(() => sent() === 5, 'five publishes on the wire');
    await new Promise((r) => setTimeout(r, 300));
    // The broker withholds its PUBACKs: the producer is parked on the sixth message.
    expect(sent()).toBe(5);
    expect(handed).toBe(5);
    expect(publisher.inFlight).toBe(5);
    broker.release();
    await producer;
    await publisher.drain();
    expect(publisher.stats).toEqual({ sent: 50, acked: 50, failed: 0 });
    expect(maxOutstanding()).toBeLessThanOrEqual(5);
    await until(() => broker.received.length === 50, 'all fifty delivered');
  });

  it('keeps to the configured rate', async () => {
    const broker = await startPrivateBroker();
    cleanups.push(() => broker.close());
    const { c } = await client(broker.url);
    const publisher = new BoundedPublisher(c, { maxInflight: 100, ratePerSecond: 200, onError: () => {} });
    const started = performance.now();
    for (let i = 0; i < 100; i++) await publisher.publish('virtual/v1/V1RTUALV1N0000001/telemetry', JSON.stringify({ messageId: String(i) }));
    await publisher.drain();
    // 100 messages at 200/s take about half a second (the first 25 ms may go at once).
    expect(performance.now() - started).toBeGreaterThan(420);
  });
});
