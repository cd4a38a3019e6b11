import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import type { Store } from '../../src/store/contract.ts';
import { freePort } from '../helpers/free-port.ts';
import { startDeployMosquitto, type DeployMosquitto } from './deploy-mosquitto.ts';
import { deployment, type Deployment } from './service-env.ts';
import { eventually, startService, waitForHttp, type ServiceProcess } from './service-process.ts';
import { POINTS_PER_MESSAGE, startTelemetryPublisher, telemetryMessage, type TelemetryPublisher } from './telemetry-publisher.ts';

/*
 * Past one subscriber: pipeline processes share one MQTT 5 shared subscription on a private
 * Mosquitto configured as deploy/mosquitto (persistence on, free ports), and the broker spreads
 * the stream over them. What happens to the messages when a member dies, comes back, leaves or
 * never comes back, and when every member is stopped, is what docs/operations.md ("MQTT
 * brokers: what each keeps") says; these tests hold it to that.
 */
const GROUP = 'cvd-ingest';

interface Member {
  id: number;
  probe: number;
  proc: ServiceProcess;
}

describe('pipeline processes on one shared subscription (Mosquitto)', () => {
  let redis: PrivateRedis;
  let mosquitto: DeployMosquitto | undefined;
  let d: Deployment;
  let store: Store;
  let publisher: TelemetryPublisher | undefined;
  const procs: ServiceProcess[] = [];

  beforeEach(async () => {
    redis = await startPrivateRedis();
    d = deployment(redis.url, {
      ROLES: 'pipeline',
      LOG_LEVEL: 'info',
      // A dead member's harmonize job is taken over within seconds, not BullMQ's 30 s.
      PIPELINE_LOCK_DURATION_MS: '5000',
      PIPELINE_STALLED_INTERVAL_MS: '1000',
      INGEST_MAX_FUTURE_S: '315360000',
      SHUTDOWN_TIMEOUT_MS: '20000',
    });
    store = await d.store();
  });
  afterEach(async () => {
    await publisher?.close();
    publisher = undefined;
    await Promise.all(procs.map((p) => p.stop(5_000)));
    procs.length = 0;
    await store?.close();
    await mosquitto?.stop();
    mosquitto = undefined;
    await redis?.stop();
    d?.cleanup();
  });

  async function broker(settings: Record<string, string> = {}): Promise<DeployMosquitto> {
    mosquitto = await startDeployMosquitto({ settings });
    publisher = await startTelemetryPublisher(mosquitto.url, mosquitto.passwords.virtual);
    return mosquitto;
  }

  /** Pipeline process `id` (client id cvd-ingest-<id>), once it is subscribed. */
  async function member(id: number, env: Record<string, string> = {}): Promise<Member> {
    const probe = await freePort();
    const proc = startService(`member-${id}`, {
      env: d.env({ PROBE_PORT: String(probe), MQTT_URL: mosquitto!.ingestUrl, MQTT_SHARE_GROUP: GROUP, MQTT_CLIENT_ID: `${GROUP}-${id}`, ...env }),
    });
    procs.push(proc);
    await waitForHttp(`http://127.0.0.1:${probe}/ready`, 200, 60_000, proc);
    await eventually(() => proc.lines.some((l) => l.includes('subscribed on the external MQTT broker')), `member ${id} subscribed`, 30_000);
    return { id, probe, proc };
  }

  /** A counter of a member's /metrics (0 when absent). */
  async function counter(m: Member, series: string): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${m.probe}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(series));
    return line ? Number(line.slice(series.length).trim()) : 0;
  }
  const acceptedMqtt = (m: Member) => counter(m, 'cvd_ingest_messages_total{manufacturer="virtual",transport="mqtt"}');
  const pointsStored = (m: Member) => counter(m, 'cvd_data_points_stored_total{manufacturer="virtual"}');

  const stored = () => store.dataPoints.count();
  /** Messages stored: each is five points of its own. */
  async function messagesStored(): Promise<number> {
    const points = await stored();
    expect(points % POINTS_PER_MESSAGE).toBe(0);
    return points / POINTS_PER_MESSAGE;
  }
  /** The stored count once it has not moved for 3 s. */
  async function settled(): Promise<number> {
    let last = -1;
    let since = Date.now();
    for (;;) {
      const now = await messagesStored();
      if (now !== last) {
        last = now;
        since = Date.now();
      // Quiet for 5 s: on a busy host a batch can take seconds between two counts.
      } else if (Date.now() - since >= 5_000) return now;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  /** Whether message `i` was stored (its mileage point). */
  async function isStored(i: number): Promise<boolean> {
    const { payload } = telemetryMessage(i);
    const { vin, sampledAt } = JSON.parse(payload) as { vin: string; sampledAt: string };
    const at = Date.parse(sampledAt);
    const page = await store.dataPoints.history({ vin, item: 'mileage', fromMs: at, toMs: at + 1, limit: 10 });
    return page.items.length === 1;
  }

  it('20,000 QoS 1 messages while one member is SIGKILLed and restarted with its client id: every acknowledged message stored exactly once, a share by each', async () => {
    await broker();
    const members = await Promise.all([1, 2, 3].map((id) => member(id)));
    let restarted: Promise<Member> | undefined;
    const acked = await publisher!.publish(0, 20_000, {
      ratePerS: 1000,
      onAcked(n) {
        if (n === 6_000) members[1]!.proc.signal('SIGKILL');
        // Back with the same client id while the publishing goes on: it gets its session back,
        // with the share the broker queued for it meanwhile and the messages it had in flight.
        if (n === 9_000) restarted = member(2);
      },
    });
    expect(acked).toBe(20_000);
    const back = await restarted!;
    await eventually(async () => (await messagesStored()) === acked, 'every acknowledged message stored', 240_000, 500);
    expect(await settled()).toBe(acked);
    // Stored once: five points per message and no more, and nothing quarantined.
    expect(await stored()).toBe(acked * POINTS_PER_MESSAGE);
    expect(await store.quarantine.count()).toBe(0);
    for (const i of [0, 5_999, 6_000, 12_345, 19_999]) expect(await isStored(i)).toBe(true);
    // Each of the three subscribers took a share (the restarted one: its queued share and on),
    // and each process harmonized and stored some.
    const survivors = [members[0]!, back, members[2]!];
    const accepted: number[] = [];
    for (const m of survivors) {
      accepted.push(await acceptedMqtt(m));
      expect(accepted.at(-1), `member ${m.id} accepted`).toBeGreaterThan(acked / 10);
      expect(await pointsStored(m), `member ${m.id} stored`).toBeGreaterThan(0);
    }
    // Shared, not copied: each message went to one member (a plain subscription per process
    // would have given each of them all 20,000); the few extra are re-sends of what the killed
    // one had in flight, and its first life's count died with it.
    const total = accepted.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(acked * 1.05);
    expect(total).toBeGreaterThan(acked * 0.6);
    expect(back.proc.lines.some((l) => l.includes('"sessionPresent":true'))).toBe(true);
  }, 420_000);

  it('scale-in from 3 to 2 with graceful leave while publishing: published equals stored', async () => {
    await broker();
    const members = await Promise.all([1, 2, 3].map((id) => member(id)));
    const acked = await publisher!.publish(0, 12_000, {
      ratePerS: 800,
      onAcked(n) {
        if (n === 4_000) members[2]!.proc.signal('SIGTERM');
      },
    });
    expect(acked).toBe(12_000);
    const exit = await members[2]!.proc.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    const leaving = members[2]!.proc.lines;
    expect(leaving.some((l) => l.includes('left the MQTT share group'))).toBe(true);
    expect(leaving.some((l) => l.includes('did not drain in time'))).toBe(false);
    await eventually(async () => (await messagesStored()) === acked, 'every message stored', 240_000, 500);
    expect(await settled()).toBe(acked);
    // The two left took everything published after the leave.
    expect((await acceptedMqtt(members[0]!)) + (await acceptedMqtt(members[1]!))).toBeGreaterThan(acked * 0.6);
  }, 420_000);

  it('without the leave: a member killed keeps receiving its share into its session, delivered when its client id is back, lost once the session expired', async () => {
    await broker();
    // Member 2's session outlives a disconnect by 3 s only (MQTT_SESSION_EXPIRY_S).
    const members = [await member(1), await member(2, { MQTT_SESSION_EXPIRY_S: '3' }), await member(3)];
    let published = await publisher!.publish(0, 6_000, {
      ratePerS: 800,
      onAcked(n) {
        if (n === 2_000) members[2]!.proc.signal('SIGKILL');
      },
    });
    // Every third message after the kill went to member 3's session, which nobody reads.
    let missing = published - (await settled());
    expect(missing).toBeGreaterThanOrEqual(4_000 / 3 - 200);
    expect(missing).toBeLessThanOrEqual(4_000 / 3 + 600);
    // Back with the same client id: the session hands over what it kept.
    members[2] = await member(3);
    await eventually(async () => (await messagesStored()) === published, 'the stranded share stored', 120_000, 500);

    // Member 2 is killed too, and comes back only after its session expired: its share is lost.
    published += await publisher!.publish(6_000, 3_000, {
      ratePerS: 800,
      onAcked(n) {
        if (n === 600) members[1]!.proc.signal('SIGKILL');
      },
    });
    // Its session expires 3 s after the kill; what the others stored by then is final.
    await new Promise((r) => setTimeout(r, 5_000));
    const before = await settled();
    missing = published - before;
    expect(missing).toBeGreaterThanOrEqual(2_400 / 3 - 200);
    members[1] = await member(2, { MQTT_SESSION_EXPIRY_S: '3' });
    expect(members[1].proc.lines.some((l) => l.includes('"sessionPresent":false'))).toBe(true);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await messagesStored()).toBe(before);
  }, 420_000);

  it('every member stopped: the last keeps its session and the broker queues up to max_queued_messages; past it the newest are dropped', async () => {
    const LIMIT = 3_000;
    await broker({ max_queued_messages: String(LIMIT) });
    const start = () => Promise.all([1, 2, 3].map((id) => member(id)));
    const stopAll = async (members: Member[]) => {
      await Promise.all(members.map((m) => m.proc.stop(30_000)));
      const lines = members.flatMap((m) => m.proc.lines);
      // Two leave; the last one keeps its session, so the group's subscription stays.
      expect(lines.filter((l) => l.includes('left the MQTT share group'))).toHaveLength(2);
      expect(lines.filter((l) => l.includes('the session is kept'))).toHaveLength(1);
      procs.length = 0;
    };
    let members = await start();
    let published = await publisher!.publish(0, 300, { ratePerS: 1000 });
    await eventually(async () => (await messagesStored()) === published, 'the first messages', 60_000, 250);
    await stopAll(members);

    // Within the budget: nothing lost.
    published += await publisher!.publish(300, LIMIT, { ratePerS: 2000 });
    members = await start();
    await eventually(async () => (await messagesStored()) === published, 'every message published while all were stopped', 120_000, 500);
    expect(await settled()).toBe(published);
    await stopAll(members);

    // Past it: the broker acknowledged every publish, kept the first LIMIT, dropped the newest 500.
    const from = published;
    const acked = await publisher!.publish(from, LIMIT + 500, { ratePerS: 2000 });
    expect(acked).toBe(LIMIT + 500);
    expect(mosquitto!.lines.some((l) => /Outgoing messages are being dropped for client cvd-ingest-\d/.test(l))).toBe(true);
    members = await start();
    await eventually(async () => (await messagesStored()) === published + LIMIT, 'the budget stored', 120_000, 500);
    expect(await settled()).toBe(published + LIMIT);
    expect(await isStored(from + LIMIT - 1)).toBe(true);
    expect(await isStored(from + LIMIT)).toBe(false);
    expect(await isStored(from + LIMIT + 499)).toBe(false);
  }, 420_000);
});
